import { ConsoleError } from '../console-error.js';

export interface ExportQuery {
  from: number;
  to: number;
  format: 'csv' | 'json';
  apiKeyIds: string[];
  tags: string[];
  /** Only the rows attributed to this member. */
  memberId?: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MAX_PERIOD_DAYS = 3_660;
const MAX_FILTER_VALUES = 100;
const KNOWN = new Set([
  'period',
  'from_date',
  'to_date',
  'format',
  'api_key_id[]',
  'api_key_id',
  'tags[]',
  'tags',
  'member_id',
]);
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const bad = (param: string, message: string) => new ConsoleError('invalid_request', message, param);

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw bad(name, `${name} may be given once.`);
  return value;
}

/** `api_key_id[]=a&api_key_id[]=b`, `api_key_id=a&api_key_id=b` and both mixed: one list. */
function list(query: Record<string, unknown>, name: string): string[] {
  const values = [query[`${name}[]`], query[name]].flatMap((v) =>
    v === undefined ? [] : Array.isArray(v) ? (v as unknown[]) : [v],
  ) as string[];
  if (values.length > MAX_FILTER_VALUES) throw bad(`${name}[]`, `At most ${MAX_FILTER_VALUES} ${name}[] values.`);
  for (const value of values) {
    if (value.length === 0 || value.length > 200)
      throw bad(`${name}[]`, `Each ${name}[] value must have 1 to 200 characters.`);
  }
  return [...new Set(values)];
}

/** `1h`, `24h`, `7d`, `30d`, any `<n>h` or `<n>d` up to ten years. */
export function parsePeriod(value: string): number {
  const match = /^([1-9]\d{0,5})([hd])$/.exec(value);
  if (!match)
    throw bad(
      'period',
      'period must be a duration such as 1h, 24h, 7d or 30d (a positive whole number of hours h or days d).',
    );
  const ms = Number(match[1]) * (match[2] === 'h' ? HOUR_MS : DAY_MS);
  if (ms > MAX_PERIOD_DAYS * DAY_MS) throw bad('period', `period may be at most ${MAX_PERIOD_DAYS}d.`);
  return ms;
}

/**
 * ISO 8601 date or date-time; without an offset it is UTC. A bare date means that day's
 * midnight; as `to_date` it means the end of that day (the next midnight, exclusive).
 */
export function parseIsoDate(value: string, param: string, endOfDay: boolean): number {
  const match = ISO.exec(value);
  if (!match)
    throw bad(param, `${param} must be an ISO 8601 date or date-time, such as 2025-01-31 or 2025-01-31T12:00:00Z.`);
  const dateOnly = match[4] === undefined;
  const text = dateOnly ? `${value}T00:00:00Z` : match[8] ? value.replace(' ', 'T') : `${value.replace(' ', 'T')}Z`;
  const ms = Date.parse(text);
  // Date.parse rolls 2025-02-30 over to March; a round trip of the date part catches that.
  if (Number.isNaN(ms) || (dateOnly && new Date(ms).toISOString().slice(0, 10) !== value))
    throw bad(param, `${param} is not a valid date.`);
  return dateOnly && endOfDay ? ms + DAY_MS : ms;
}

/**
 * The export's query string. `from_date`/`to_date` override `period`: both given bound the
 * range; only `from_date` runs to now; only `to_date` reaches back `period` from it.
 */
export function parseExportQuery(query: Record<string, unknown>, now: number): ExportQuery {
  for (const name of Object.keys(query)) {
    if (!KNOWN.has(name))
      throw bad(
        name,
        `Unknown query parameter "${name}". Known: period, from_date, to_date, format, api_key_id[], tags[], member_id.`,
      );
  }
  const period = parsePeriod(single(query, 'period') ?? '24h');
  const fromText = single(query, 'from_date');
  const toText = single(query, 'to_date');
  const to = toText !== undefined ? parseIsoDate(toText, 'to_date', true) : now;
  const from = fromText !== undefined ? parseIsoDate(fromText, 'from_date', false) : to - period;
  if (from >= to) throw bad(fromText !== undefined ? 'from_date' : 'to_date', 'from_date must be before to_date.');
  const format = single(query, 'format') ?? 'csv';
  if (format !== 'csv' && format !== 'json') throw bad('format', 'format must be csv or json.');
  const memberId = single(query, 'member_id');
  if (memberId !== undefined && (memberId.length === 0 || memberId.length > 100 || memberId.includes('\u0000')))
    throw bad('member_id', 'member_id must have 1 to 100 characters.');
  return {
    from,
    to,
    format,
    apiKeyIds: list(query, 'api_key_id'),
    tags: list(query, 'tags'),
    ...(memberId !== undefined ? { memberId } : {}),
  };
}
