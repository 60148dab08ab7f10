/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests: it throws on any
 * line a Prometheus server would refuse, and checks the family rules (histogram buckets
 * cumulative, `+Inf` bucket equal to `_count`). Stricter than Prometheus in one way: every
 * sample needs a TYPE line first (prom-client always writes one).
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: ['', '_total'],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a newline');
  lines.forEach((line, index) => {
    const where = `line ${index + 1} "${line.slice(0, 120)}"`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!meta) return; // a plain comment
      const [, kind, name, rest] = meta as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name`);
      const family = families.get(name) ?? { name, type: 'untyped' as const, help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
          throw new Error(`${where}: bad type`);
        if (family.samples.length > 0) throw new Error(`${where}: TYPE after samples`);
        family.type = rest as Family['type'];
      } else family.help = rest;
      families.set(name, family);
      return;
    }
    const sample = parseSample(line, where);
    const family = familyOf(families, sample.name);
    if (!family) throw new Error(`${where}: sample without a TYPE line`);
    family.samples.push(sample);
  });
  for (const family of families.values()) checkFamily(family);
  return families;
}

function familyOf(families: Map<string, Family>, sampleName: string): Family | undefined {
  for (const family of families.values()) {
    if (SUFFIXES[family.type].some((suffix) => family.name + suffix === sampleName)) return family;
  }
  return undefined;
}

function parseSample(line: string, where: string): Sample {
  const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
  if (!match) throw new Error(`${where}: not a sample line`);
  const labels: Record<string, string> = {};
  const body = match[2] ? match[2].slice(1, -1) : '';
  let i = 0;
  while (i < body.length) {
    const nameMatch = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(body.slice(i));
    if (!nameMatch || !LABEL.test(nameMatch[1]!)) throw new Error(`${where}: bad label at ${i}`);
    i += nameMatch[0].length;
    let value = '';
    for (;;) {
      const c = body[i];
      if (c === undefined) throw new Error(`${where}: unterminated label value`);
      i++;
      if (c === '"') break;
      if (c === '\\') {
        const next = body[i++];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`${where}: bad escape \\${next}`);
      } else if (c === '\n') throw new Error(`${where}: raw newline in a label value`);
      else value += c;
    }
    if (nameMatch[1]! in labels) throw new Error(`${where}: label ${nameMatch[1]} twice`);
    labels[nameMatch[1]!] = value;
    if (body[i] === ',') i++;
    else if (i < body.length) throw new Error(`${where}: expected , between labels`);
  }
  // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes "Nan").
  const raw = match[3]!;
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(raw);
  const value = special
    ? special[2]!.toLowerCase() === 'nan'
      ? NaN
      : special[1] === '-'
        ? -Infinity
        : Infinity
    : Number(raw);
  if (Number.isNaN(value) && !special) throw new Error(`${where}: bad value ${raw}`);
  return { name: match[1]!, labels, value };
}

function checkFamily(family: Family): void {
  if (family.type === 'counter') {
    for (const s of family.samples) if (!(s.value >= 0)) throw new Error(`${family.name}: negative counter`);
  }
  if (family.type !== 'histogram') return;
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: bucket without le`);
      entry.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
    } else if (s.name.endsWith('_count')) entry.count = s.value;
    series.set(key, entry);
  }
  for (const [key, entry] of series) {
    const sorted = [...entry.buckets].sort((a, b) => a[0] - b[0]);
    sorted.forEach(([, count], i) => {
      if (i > 0 && count < sorted[i - 1]![1]) throw new Error(`${family.name}${key}: buckets not cumulative`);
    });
    const inf = sorted.at(-1);
    if (!inf || inf[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (inf[1] !== entry.count) throw new Error(`${family.name}${key}: +Inf bucket ${inf[1]} != count ${entry.count}`);
  }
}

/** The value of one sample (labels must match exactly the given subset), or 0 when absent. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) return sample.value;
    }
  }
  return 0;
}

/** Sum over all samples named `name` whose labels include `labels`. */
export function sampleSum(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) sum += sample.value;
    }
  }
  return sum;
}
