import { sql } from 'kysely';
import type { Store } from './database.js';
import { BUCKET_MS, type Granularity } from './usage-summary.js';

export type SavingsGroupBy = 'api_key' | 'model' | 'day';

export interface SavingsCellQuery {
  organizationId: string;
  /** Inclusive, ms, aligned to the bucket width. */
  from: number;
  /** Exclusive, ms. */
  to: number;
  granularity: Granularity;
  groupBy: SavingsGroupBy;
}

/** Token sums of one (time bucket, group, model): what pricing needs, nothing priced yet. */
export interface SavingsCell {
  /** Bucket start, ms. */
  bucket: number;
  /** Key id or model id; for `day`, the UTC day (ms) the bucket falls in, as a string. */
  group: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  /** Cached reads, at most the row's input tokens (as catalogue/cost.ts counts them). */
  cacheReadTokens: number;
  /** Cache writes, at most the input tokens left after the cached reads. */
  cacheWriteTokens: number;
  /** Rows with `uncompressed_input_tokens` set: compression ran on them. */
  compressedRequests: number;
  /** Σ max(0, uncompressed − input) over those rows. */
  compressionSavedTokens: number;
  /** Σ compression_savings_micro_usd where the request path recorded it. */
  recordedCompressionMicroUsd: number;
  /** Compressed rows without a recorded amount: their savings are estimated from tokens. */
  estimatedRequests: number;
  estimatedSavedTokens: number;
}

const GROUP_COLUMN = { api_key: 'api_key_id', model: 'model' } as const;

// Per-row clamps of catalogue/cost.ts, in SQL: cached ≤ input, writes ≤ input − cached.
const CACHE_READ = sql`case when cached_input_tokens < input_tokens then cached_input_tokens else input_tokens end`;
const UNCACHED = sql`case when input_tokens > cached_input_tokens then input_tokens - cached_input_tokens else 0 end`;
const CACHE_WRITE = sql`case when cache_creation_input_tokens < ${UNCACHED} then cache_creation_input_tokens else ${UNCACHED} end`;
const SAVED = sql`case when uncompressed_input_tokens > input_tokens then uncompressed_input_tokens - input_tokens else 0 end`;
const ESTIMATED = sql`uncompressed_input_tokens is not null and compression_savings_micro_usd is null`;

/** The sums a SavingsCell is made of, as select expressions: one definition for every grouping. */
export const SAVINGS_SUMS = [
  sql<number>`count(*)`.as('requests'),
  sql<number>`sum(input_tokens)`.as('input_tokens'),
  sql<number>`sum(output_tokens)`.as('output_tokens'),
  sql<number>`sum(cost_micro_usd)`.as('cost_micro_usd'),
  sql<number>`sum(${CACHE_READ})`.as('cache_read_tokens'),
  sql<number>`sum(${CACHE_WRITE})`.as('cache_write_tokens'),
  sql<number>`sum(case when uncompressed_input_tokens is not null then 1 else 0 end)`.as('compressed_requests'),
  sql<number>`sum(case when uncompressed_input_tokens is not null then ${SAVED} else 0 end)`.as(
    'compression_saved_tokens',
  ),
  sql<number>`sum(coalesce(compression_savings_micro_usd, 0))`.as('recorded_compression'),
  sql<number>`sum(case when ${ESTIMATED} then 1 else 0 end)`.as('estimated_requests'),
  sql<number>`sum(case when ${ESTIMATED} then ${SAVED} else 0 end)`.as('estimated_saved_tokens'),
] as const;

type SumsRow = Record<
  | 'requests'
  | 'input_tokens'
  | 'output_tokens'
  | 'cost_micro_usd'
  | 'cache_read_tokens'
  | 'cache_write_tokens'
  | 'compressed_requests'
  | 'compression_saved_tokens'
  | 'recorded_compression'
  | 'estimated_requests'
  | 'estimated_saved_tokens',
  unknown
>;

/** What pricing reads of a cell: its sums, whatever the grouping. */
export type SavingsSums = Omit<SavingsCell, 'bucket' | 'group' | 'model'>;

/** A row selected with SAVINGS_SUMS as the cell's numbers (drivers return bigint sums as text). */
export function savingsSumsOf(row: SumsRow): SavingsSums {
  return {
    requests: Number(row.requests),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    costMicroUsd: Number(row.cost_micro_usd),
    cacheReadTokens: Number(row.cache_read_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    compressedRequests: Number(row.compressed_requests),
    compressionSavedTokens: Number(row.compression_saved_tokens),
    recordedCompressionMicroUsd: Number(row.recorded_compression),
    estimatedRequests: Number(row.estimated_requests),
    estimatedSavedTokens: Number(row.estimated_saved_tokens),
  };
}

/**
 * Usage of one organization summed per (time bucket, group, model) in the database, with the
 * same SQL on SQLite and PostgreSQL (integer ms times, CASE instead of least/greatest, which
 * SQLite lacks). The model stays in the key because savings are priced per model; the caller
 * prices each cell and adds them up.
 */
export async function savingsCells(store: Store, query: SavingsCellQuery): Promise<SavingsCell[]> {
  const width = BUCKET_MS[query.granularity];
  const bucket = sql<number>`created_at - created_at % ${sql.raw(String(width))}`;
  const groupColumn = query.groupBy === 'day' ? undefined : sql.ref(GROUP_COLUMN[query.groupBy]);
  const rows = await store.db
    .selectFrom('usage_records')
    .select([
      bucket.as('bucket'),
      (groupColumn ? sql<string>`${groupColumn}` : sql<string>`''`).as('group_key'),
      'model',
      ...SAVINGS_SUMS,
    ])
    .where('organization_id', '=', query.organizationId)
    .where('created_at', '>=', query.from)
    .where('created_at', '<', query.to)
    .groupBy(groupColumn ? [bucket, groupColumn, 'model'] : [bucket, 'model'])
    .execute();

  return rows.map((row) => {
    const start = Number(row.bucket);
    return {
      bucket: start,
      group: query.groupBy === 'day' ? String(start - (start % BUCKET_MS.day)) : row.group_key,
      model: row.model,
      ...savingsSumsOf(row),
    };
  });
}
