import type { UsageExportRow } from '../../store/usage-export.js';

export const CSV_COLUMNS = [
  'Timestamp',
  'API Key',
  'Model',
  'Provider',
  'Input Tokens',
  'Output Tokens',
  'Cost',
  'Tags',
] as const;

/**
 * An integer's decimal digits. Not String(n): V8 keeps the strings of recently converted numbers
 * in a cache that outlives a young-generation collection, so with a million distinct numbers
 * (costs, token counts) every string it makes is promoted to the old generation, and an export
 * grew the heap by ~25 MB of garbage before a full collection; toFixed bypasses that cache.
 */
export function integerText(n: number): string {
  return n.toFixed(0);
}

/** Integer micro-USD as a decimal USD string, exactly (no float arithmetic): 1234567 → "1.234567". */
export function microUsdToDecimal(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const digits = integerText(Math.abs(Math.trunc(micro))).padStart(7, '0');
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

/** `name (id)`: the key's name and id, never its secret; deleted keys keep their name. */
export function apiKeyLabel(row: Pick<UsageExportRow, 'api_key_name' | 'api_key_id'>): string {
  return row.api_key_name === null ? row.api_key_id : `${row.api_key_name} (${row.api_key_id})`;
}

/**
 * Tags in one cell, separated by commas. The gateway refuses commas in tags, so for every tag
 * it records the cell is a plain comma-separated list; a backslash or comma inside a tag
 * (possible only in rows written by other means) is escaped with a backslash so the split
 * stays unambiguous.
 */
export function joinTags(tags: string[]): string {
  return tags.map((tag) => tag.replace(/[\\,]/g, (c) => `\\${c}`)).join(',');
}

export function splitTags(cell: string): string[] {
  if (cell === '') return [];
  const tags: string[] = [];
  let current = '';
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i]!;
    if (c === '\\' && i + 1 < cell.length) current += cell[++i];
    else if (c === ',') {
      tags.push(current);
      current = '';
    } else current += c;
  }
  tags.push(current);
  return tags;
}

export function csvRecord(row: UsageExportRow): string[] {
  return [
    new Date(row.created_at).toISOString(),
    apiKeyLabel(row),
    row.model,
    row.provider,
    integerText(row.input_tokens),
    integerText(row.output_tokens),
    microUsdToDecimal(row.cost_micro_usd),
    joinTags(row.tags),
  ];
}

/**
 * The JSON export's record: the CSV's information in snake_case, plus ids and a few details, the
 * error code of a refused request among them (the CSV keeps the spec's columns).
 */
export function jsonRecord(row: UsageExportRow) {
  return {
    id: row.id,
    request_id: row.request_id,
    timestamp: new Date(row.created_at).toISOString(),
    api_key_id: row.api_key_id,
    api_key_name: row.api_key_name,
    model: row.model,
    provider: row.provider,
    input_tokens: row.input_tokens,
    cached_input_tokens: row.cached_input_tokens,
    output_tokens: row.output_tokens,
    cost: microUsdToDecimal(row.cost_micro_usd),
    cost_micro_usd: row.cost_micro_usd,
    tags: row.tags,
    status: row.status_code,
    error_code: row.error_code,
  };
}
