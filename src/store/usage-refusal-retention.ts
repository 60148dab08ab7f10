import { sql } from 'kysely';
import type { Store } from './database.js';

/** Literal, not parameters: a partial index is used only when the query states its predicate (migration 015). */
const FREE_FAILURE = sql<boolean>`status_code >= 400 and cost_micro_usd = 0`;

/**
 * Deletes up to `limit` usage rows of refused or failed requests that cost nothing, created
 * before `cutoff` (ms), oldest first; returns how many went. Rows that cost money are billing
 * records and are never touched here.
 */
export async function deleteFreeFailuresBefore(store: Store, cutoff: number, limit: number): Promise<number> {
  const result = await store.db
    .deleteFrom('usage_records')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('usage_records')
        .select('id')
        .where(FREE_FAILURE)
        .where('created_at', '<', cutoff)
        .orderBy('created_at')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
