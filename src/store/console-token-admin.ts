import { sql } from 'kysely';
import type { Store } from './database.js';
import type { ConsoleToken } from './console-tokens.js';

/** Console-token management for the /v1/api_tokens routes; always scoped to one organization. */
export async function listConsoleTokens(
  store: Store,
  organizationId: string,
  limit: number,
  startingAfter?: string,
): Promise<{ data: ConsoleToken[]; hasMore: boolean } | undefined> {
  let query = store.db.selectFrom('console_tokens').selectAll().where('organization_id', '=', organizationId);
  if (startingAfter !== undefined) {
    const cursor = await getConsoleToken(store, organizationId, startingAfter);
    if (!cursor) return undefined;
    query = query.where(sql<boolean>`(created_at, id) > (${cursor.created_at}, ${cursor.id})`);
  }
  const rows = await query
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  return { data: rows.slice(0, limit), hasMore: rows.length > limit };
}

export async function getConsoleToken(
  store: Store,
  organizationId: string,
  id: string,
): Promise<ConsoleToken | undefined> {
  return store.db
    .selectFrom('console_tokens')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Deleting the row (and so its digest) revokes the token on the next request. */
export async function deleteConsoleToken(store: Store, organizationId: string, id: string): Promise<boolean> {
  const result = await store.db
    .deleteFrom('console_tokens')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
