import { sql } from 'kysely';
import type { Store } from './database.js';

/**
 * The count of reloads asked for (one row, migration 018). The console action increments it; every
 * instance reads it every few seconds and reloads when it moved. A durable count rather than a
 * message: an instance that was restarting, or whose poll failed, still sees the change later.
 */
export async function currentReloadGeneration(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('reload_generation')
    .select('generation')
    .where('id', '=', 1)
    .executeTakeFirst();
  return Number(row?.generation ?? 0);
}

/** Increments the count atomically (two consoles at once both count) and returns the new value. */
export async function requestReload(store: Store, requestedBy: string): Promise<number> {
  const row = await store.db
    .updateTable('reload_generation')
    .set({ generation: sql`generation + 1`, requested_at: Date.now(), requested_by: requestedBy })
    .where('id', '=', 1)
    .returning('generation')
    .executeTakeFirstOrThrow();
  return Number(row.generation);
}
