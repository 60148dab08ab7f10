import { jsonRowsHeader } from './markers.js';

// Pretty-printed JSON from API and tool calls spends a token on nearly every indent. Removing
// whitespace outside strings is exactly lossless (no re-serialisation: numbers keep their text).
export function minifyJson(text: string): string | undefined {
  const t = text.trim();
  const first = t[0];
  const last = t[t.length - 1];
  if (!((first === '{' && last === '}') || (first === '[' && last === ']')) || !t.includes('\n')) return undefined;
  try {
    JSON.parse(t);
  } catch {
    return undefined;
  }
  let out = '';
  let inString = false;
  let from = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 32 || c === 10 || c === 13 || c === 9) {
      out += t.slice(from, i);
      from = i + 1;
    }
  }
  return out + t.slice(from);
}

/** Records fewer than this keep their keys: the header would cost more than it saves. */
const MIN_RECORDS = 3;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON array of records with the same keys in the same order (`gh run list --json …`, most
 * REST list endpoints) → the keys once, then one line of values per record. Reversible: record
 * k is the keys zipped with line k. Values are re-serialised (`1.0` would come back as `1`), so
 * this is for what a command printed, never for a file the agent reads.
 */
export function jsonRecordsAsRows(text: string): string | undefined {
  const t = text.trim();
  if (t[0] !== '[' || t[t.length - 1] !== ']') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length < MIN_RECORDS || !value.every(isRecord)) return undefined;
  const keys = Object.keys(value[0] as Record<string, unknown>);
  if (keys.length < 2) return undefined;
  const rows: string[] = [];
  for (const record of value as Record<string, unknown>[]) {
    const own = Object.keys(record);
    if (own.length !== keys.length || own.some((k, i) => k !== keys[i])) return undefined;
    rows.push(JSON.stringify(keys.map((k) => record[k])));
  }
  return `${jsonRowsHeader(value.length, JSON.stringify(keys))}\n${rows.join('\n')}`;
}
