import type { Store } from './database.js';
import type { Keyring } from '../secrets/keyring.js';
import { sealContext } from './api-keys.js';
import { providerKeySealContext } from './provider-keys.js';

/** A table holding sealed values in `key_ciphertext`, each bound to its row's `id` by its seal context. */
export interface SealedTable {
  table: 'api_keys' | 'organization_provider_keys';
  context: (id: string) => string;
}

export const SEALED_API_KEYS: SealedTable = { table: 'api_keys', context: sealContext };
/** Organizations' own provider keys (BYOK, migration 029). */
export const SEALED_PROVIDER_KEYS: SealedTable = {
  table: 'organization_provider_keys',
  context: providerKeySealContext,
};
/** Every table of sealed values, in the order `gateway admin rotate-master-key` re-seals them. */
export const SEALED_TABLES: readonly SealedTable[] = [SEALED_API_KEYS, SEALED_PROVIDER_KEYS];

export interface ResealProgress {
  /** Values re-sealed with the current key by this run. */
  resealed: number;
  /** Values already sealed by the current key (a previous or interrupted run, or a key made since). */
  alreadyCurrent: number;
  /** Values changed or deleted between the read and the write (their new value was sealed by a gateway). */
  changedMeanwhile: number;
  /** Ids of keys no key of the ring opens, with why: rotation cannot finish while there are any. */
  unreadable: Array<{ table: SealedTable['table']; id: string; error: string }>;
  /** Sealed values by the id of the key that sealed them (`unreadable`: none of the ring), as found before re-sealing. */
  byKeyId: Record<string, number>;
}

export interface ResealOptions {
  batchSize: number;
  /** Only count (`--check`): nothing is written. */
  dryRun?: boolean;
  /** After each batch, e.g. to report progress or pause. */
  afterBatch?: (progress: ResealProgress) => Promise<void> | void;
}

/**
 * Re-seals every sealed gateway key with the keyring's current key, a batch of rows (by id) at a
 * time, each batch one transaction, while gateways keep serving. A row is written only if its
 * value is still the one read (compare-and-set), so a key created, deleted or re-sealed by a
 * gateway meanwhile is never overwritten. Idempotent: values already sealed by the current key
 * are skipped, so an interrupted run is resumed by running it again.
 */
export async function resealApiKeys(store: Store, keyring: Keyring, options: ResealOptions): Promise<ResealProgress> {
  return resealTable(store, keyring, SEALED_API_KEYS, options);
}

/** Every sealed value of the store (gateway keys, then organizations' provider keys), one progress for all. */
export async function resealStoredSecrets(
  store: Store,
  keyring: Keyring,
  options: ResealOptions,
): Promise<ResealProgress> {
  let progress: ResealProgress | undefined;
  for (const table of SEALED_TABLES) progress = await resealTable(store, keyring, table, options, progress);
  return progress!;
}

/** `resealApiKeys` for any table of sealed values; `progress` accumulates across tables. */
export async function resealTable(
  store: Store,
  keyring: Keyring,
  target: SealedTable,
  options: ResealOptions,
  progress: ResealProgress = { resealed: 0, alreadyCurrent: 0, changedMeanwhile: 0, unreadable: [], byKeyId: {} },
): Promise<ResealProgress> {
  // Both tables have the same two columns; typed as the gateway keys' table for the query builder.
  const table = target.table as 'api_keys';
  const contextOf = target.context;
  let after = '';
  for (;;) {
    const rows = await store.db
      .selectFrom(table)
      .select(['id', 'key_ciphertext'])
      .where('key_ciphertext', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(options.batchSize)
      .execute();
    if (rows.length === 0) return progress;
    after = rows.at(-1)!.id;
    const writes: Array<{ id: string; from: string; to: string }> = [];
    for (const row of rows) {
      const sealed = row.key_ciphertext!;
      const keyId = sealerOf(keyring, sealed, contextOf(row.id));
      progress.byKeyId[keyId] = (progress.byKeyId[keyId] ?? 0) + 1;
      if (keyId === keyring.current.id) {
        progress.alreadyCurrent++;
        continue;
      }
      try {
        const secret = keyring.open(sealed, contextOf(row.id));
        writes.push({ id: row.id, from: sealed, to: keyring.seal(secret, contextOf(row.id)) });
      } catch (error) {
        progress.unreadable.push({ table: target.table, id: row.id, error: (error as Error).message });
      }
    }
    if (writes.length > 0 && !options.dryRun) {
      await store.db.transaction().execute(async (tx) => {
        for (const write of writes) {
          const result = await tx
            .updateTable(table)
            .set({ key_ciphertext: write.to })
            .where('id', '=', write.id)
            .where('key_ciphertext', '=', write.from)
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) === 1) progress.resealed++;
          else progress.changedMeanwhile++;
        }
      });
    }
    await options.afterBatch?.(progress);
  }
}

function sealerOf(keyring: Keyring, sealed: string, context: string): string {
  try {
    return keyring.sealerOf(sealed, context) ?? 'unreadable';
  } catch {
    return 'unreadable';
  }
}
