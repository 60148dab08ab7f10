/**
 * The token count of a very long piece that repeats one short unit ("aaaa…", "中中中…", "=-=-…"),
 * without merging all of it. tiktoken's byte-pair merge always takes the lowest-ranked adjacent
 * pair, leftmost first; on u^m every pair of a rank is the same pair repeated, so each rank's
 * merges sweep the run from the left and the run settles into one block repeated, with only its
 * last few parts depending on m. So past some length, adding P units adds d tokens: the count is
 * periodic. P and d are found on the unit itself (short runs merged exactly), checked at five
 * lengths, and the count of u^m is read off an exact count of a short run with the same
 * remainder. test/tokenize/periodic-runs.test.ts holds it against the full merge on thousands of
 * runs. A unit whose counts show no period of at most MAX_PERIOD units gets no shortcut.
 */

/** Units of at most this many UTF-16 code units are looked for. */
const MAX_UNIT = 4;
/** Periods tried, in units. */
const MAX_PERIOD = 128;
/** Runs are measured from this many bytes on (far past any token: tokens are at most ~128 bytes). */
const BASE_BYTES = 2048;
const MAX_CACHED_UNITS = 64;

interface Period {
  /** Units the exact counts start from. */
  base: number;
  units: number;
  tokens: number;
}

/** Per merge table (tokenizer), per unit: its period, or null when it has none to use. */
const periods = new WeakMap<object, Map<string, Period | null>>();

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');

/** The unit `piece` repeats (the shortest), or undefined. */
export function repeatedUnit(piece: string): string | undefined {
  const length = piece.length;
  for (let k = 1; k <= MAX_UNIT && k * 2 <= length; k++) {
    if (length % k !== 0) continue;
    let i = k;
    while (i < length && piece.charCodeAt(i) === piece.charCodeAt(i - k)) i++;
    if (i === length) return piece.slice(0, k);
  }
  return undefined;
}

/**
 * The count of `piece` if it is `unit` repeated and the unit has a period; else undefined.
 * `count` is the exact count of a (short) piece under the same merge table, `table` identifies it.
 */
export function periodicRunCount(piece: string, table: object, count: (piece: string) => number): number | undefined {
  const unit = repeatedUnit(piece);
  if (unit === undefined) return undefined;
  const repeats = piece.length / unit.length;
  const period = periodOf(unit, table, count);
  if (!period || repeats < period.base * 4) return undefined;
  const beyond = repeats - period.base;
  const remainder = beyond % period.units;
  const blocks = (beyond - remainder) / period.units;
  return count(unit.repeat(period.base + remainder)) + blocks * period.tokens;
}

/**
 * The smallest P (units) such that, over a window of 2 × MAX_PERIOD consecutive run lengths
 * from the base on, every run P units longer has the same number d of tokens more; then checked
 * once more far beyond the window. null when no P ≤ MAX_PERIOD does.
 */
function periodOf(unit: string, table: object, count: (piece: string) => number): Period | null {
  let byUnit = periods.get(table);
  if (!byUnit) periods.set(table, (byUnit = new Map<string, Period | null>()));
  const known = byUnit.get(unit);
  if (known !== undefined) return known;
  if (byUnit.size >= MAX_CACHED_UNITS) byUnit.clear();
  const base = Math.ceil(BASE_BYTES / utf8Length(unit));
  const window: number[] = [];
  for (let n = 0; n <= 2 * MAX_PERIOD; n++) window.push(count(unit.repeat(base + n)));
  let found: Period | null = null;
  for (let units = 1; units <= MAX_PERIOD && !found; units++) {
    const tokens = window[units]! - window[0]!;
    if (tokens <= 0) continue;
    let steady = true;
    for (let n = 0; n + units < window.length && steady; n++) steady = window[n + units]! - window[n]! === tokens;
    if (!steady) continue;
    const far = base * 3 + 7;
    const predicted = window[(far - base) % units]! + Math.floor((far - base) / units) * tokens;
    if (count(unit.repeat(far)) === predicted) found = { base, units, tokens };
  }
  byUnit.set(unit, found);
  return found;
}
