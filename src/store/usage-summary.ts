import { sql } from 'kysely';
import type { Store } from './database.js';

export type Granularity = 'hour' | 'day';
export type UsageGroupBy = 'model' | 'provider' | 'api_key' | 'tag';

export const BUCKET_MS: Record<Granularity, number> = { hour: 3_600_000, day: 86_400_000 };

export interface UsageSummaryQuery {
  organizationId: string;
  /** Inclusive, ms, aligned to the bucket width. */
  from: number;
  /** Exclusive, ms. */
  to: number;
  granularity: Granularity;
  groupBy: UsageGroupBy;
  /** Only the rows attributed to this member (usage_records.member_id). */
  memberId?: string;
}

export interface UsageTotals {
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
}

export interface UsageCell extends UsageTotals {
  /** Bucket start, ms. */
  bucket: number;
  group: string;
}

const GROUP_COLUMN = { model: 'model', provider: 'provider', api_key: 'api_key_id', tag: 'tags' } as const;
export const UNTAGGED = '(untagged)';

/**
 * Usage of one organization summed per (time bucket, group) in the database, with the same SQL
 * on SQLite and PostgreSQL: times are integer ms, so a bucket is `created_at - created_at % width`
 * (UTC hours or days). Tags are a JSON array per row: rows are grouped by the array's text and
 * split here, so a request with two tags counts once under each.
 */
export async function usageCells(
  store: Store,
  query: UsageSummaryQuery,
): Promise<{ cells: UsageCell[]; totals: UsageTotals }> {
  const width = sql.raw(String(BUCKET_MS[query.granularity]));
  const bucket = sql<number>`created_at - created_at % ${width}`;
  const column = GROUP_COLUMN[query.groupBy];
  let selection = store.db
    .selectFrom('usage_records')
    .select([
      bucket.as('bucket'),
      sql<string>`${sql.ref(column)}`.as('group_key'),
      sql<number>`count(*)`.as('requests'),
      sql<number>`sum(case when status_code >= 400 then 1 else 0 end)`.as('errors'),
      sql<number>`sum(input_tokens)`.as('input_tokens'),
      sql<number>`sum(output_tokens)`.as('output_tokens'),
      sql<number>`sum(cost_micro_usd)`.as('cost_micro_usd'),
    ])
    .where('organization_id', '=', query.organizationId)
    .where('created_at', '>=', query.from)
    .where('created_at', '<', query.to);
  if (query.memberId !== undefined) selection = selection.where('member_id', '=', query.memberId);
  const rows = await selection.groupBy([bucket, sql.ref(column)]).execute();

  const cells: UsageCell[] = [];
  const totals: UsageTotals = { requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, costMicroUsd: 0 };
  for (const row of rows) {
    const base = {
      bucket: Number(row.bucket),
      requests: Number(row.requests),
      errors: Number(row.errors),
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      costMicroUsd: Number(row.cost_micro_usd),
    };
    totals.requests += base.requests;
    totals.errors += base.errors;
    totals.inputTokens += base.inputTokens;
    totals.outputTokens += base.outputTokens;
    totals.costMicroUsd += base.costMicroUsd;
    if (query.groupBy !== 'tag') {
      cells.push({ ...base, group: row.group_key });
      continue;
    }
    const tags = parseTags(row.group_key);
    for (const tag of tags.length > 0 ? tags : [UNTAGGED]) cells.push({ ...base, group: tag });
  }
  return { cells, totals };
}

function parseTags(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? [...new Set(value.filter((t): t is string => typeof t === 'string'))] : [];
  } catch {
    return [];
  }
}

export interface KeyMonthSpend {
  apiKeyId: string;
  spentMicroUsd: number;
  reservedMicroUsd: number;
}

/** The key_spend rows of `month` ('YYYY-MM') for these keys. */
export async function keySpendForMonth(
  store: Store,
  apiKeyIds: string[],
  month: string,
): Promise<Map<string, KeyMonthSpend>> {
  const spend = new Map<string, KeyMonthSpend>();
  if (apiKeyIds.length === 0) return spend;
  const rows = await store.db
    .selectFrom('key_spend')
    .select(['api_key_id', 'spent_micro_usd', 'reserved_micro_usd'])
    .where('month', '=', month)
    .where('api_key_id', 'in', apiKeyIds)
    .execute();
  for (const row of rows) {
    spend.set(row.api_key_id, {
      apiKeyId: row.api_key_id,
      spentMicroUsd: Number(row.spent_micro_usd),
      reservedMicroUsd: Number(row.reserved_micro_usd),
    });
  }
  return spend;
}

/** Names of keys (deleted ones included, marked) for labelling a breakdown by key. */
export async function keyNames(
  store: Store,
  organizationId: string,
  apiKeyIds: string[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (apiKeyIds.length === 0) return names;
  const rows = await store.db
    .selectFrom('api_keys')
    .select(['id', 'name', 'deleted_at'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', apiKeyIds)
    .execute();
  for (const row of rows) names.set(row.id, row.deleted_at === null ? row.name : `${row.name} (deleted)`);
  return names;
}
