import { sql } from 'kysely';
import type { Store } from './database.js';

export interface UsageExportFilter {
  organizationId: string;
  /** Inclusive lower bound, ms. */
  from: number;
  /** Exclusive upper bound, ms. */
  to: number;
  apiKeyIds: string[];
  /** Only the rows attributed to this member (usage_records.member_id). */
  memberId?: string;
  /** A row matches when it carries at least one of these tags. */
  tags: string[];
}

export interface UsageExportRow {
  id: string;
  request_id: string;
  created_at: number;
  api_key_id: string;
  api_key_name: string | null;
  model: string;
  provider: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_micro_usd: number;
  tags: string[];
  status_code: number;
  /** The code a refused or failed request was answered with; null for an answered one. */
  error_code: string | null;
}

/** LIKE pattern for the JSON text of one tag, with LIKE's own metacharacters escaped. */
function tagPattern(tag: string): string {
  return `%${JSON.stringify(tag).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Usage rows of an organization in pages ordered by (created_at, id), each page fetched only
 * when the consumer asks for it: a keyset cursor instead of OFFSET, so page n costs the same as
 * page 1 and memory holds one page. Key names come from api_keys, soft-deleted rows included.
 * The tag filter is a LIKE pre-filter on the JSON text, confirmed exactly on the decoded array.
 */
export async function* usageExportPages(
  store: Store,
  filter: UsageExportFilter,
  pageSize = 1_000,
): AsyncGenerator<UsageExportRow[]> {
  let cursor: { createdAt: number; id: string } | undefined;
  const wanted = new Set(filter.tags);
  for (;;) {
    let query = store.db
      .selectFrom('usage_records as u')
      .leftJoin('api_keys as k', 'k.id', 'u.api_key_id')
      .select([
        'u.id',
        'u.request_id',
        'u.created_at',
        'u.api_key_id',
        'k.name as api_key_name',
        'u.model',
        'u.provider',
        'u.input_tokens',
        'u.cached_input_tokens',
        'u.output_tokens',
        'u.cost_micro_usd',
        'u.tags',
        'u.status_code',
        'u.error_code',
      ])
      .where('u.organization_id', '=', filter.organizationId)
      // One lower bound only (the cursor's, once there is one): given two, SQLite may seek on the
      // window start and rescan the whole window on every page.
      .where('u.created_at', '>=', cursor ? cursor.createdAt : filter.from)
      .where('u.created_at', '<', filter.to);
    if (filter.apiKeyIds.length > 0) query = query.where('u.api_key_id', 'in', filter.apiKeyIds);
    if (filter.memberId !== undefined) query = query.where('u.member_id', '=', filter.memberId);
    if (filter.tags.length > 0) {
      query = query.where((eb) =>
        eb.or(filter.tags.map((tag) => sql<boolean>`u.tags like ${tagPattern(tag)} escape '\\'`)),
      );
    }
    // Not a row-value comparison: SQLite does not seek an index with one. With the lower bound
    // above, both planners start the (organization_id, created_at, id) index scan at the cursor.
    if (cursor) {
      const { createdAt, id } = cursor;
      query = query.where((eb) => eb.or([eb('u.created_at', '>', createdAt), eb('u.id', '>', id)]));
    }
    const rows = await query.orderBy('u.created_at').orderBy('u.id').limit(pageSize).execute();
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    cursor = { createdAt: last.created_at, id: last.id };
    const page: UsageExportRow[] = [];
    for (const row of rows) {
      const tags = JSON.parse(row.tags) as string[];
      if (wanted.size > 0 && !tags.some((t) => wanted.has(t))) continue;
      page.push({ ...row, tags });
    }
    if (page.length > 0) yield page;
    if (rows.length < pageSize) return;
  }
}
