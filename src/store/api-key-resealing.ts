import type { Store } from './database.js';
import type { Keyring } from '../secrets/keyring.js';
import { sealContext } from './api-keys.js';

export interface ResealProgress {
  /** Values re-sealed with the current key by this run. */
  resealed: number;
  /** Values already sealed by the current key (a previous or interrupted run, or a key made since). */
  alreadyCurrent: number;
  /** Values changed or deleted between the read and the write (their new value was sealed by a gateway). */
  changedMeanwhile: number;
  /** Ids of keys no key of the ring opens, with why: rotation cannot finish while there are any. */
  unreadable: Array<{ id: string; error: string }>;
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
  const progress: ResealProgress = { resealed: 0, alreadyCurrent: 0, changedMeanwhile: 0, unreadable: [], byKeyId: {} };
  let after = '';
  for (;;) {
    const rows = await store.db
      .selectFrom('api_keys')
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
      const keyId = sealerOf(keyring, sealed, sealContext(row.id));
      progress.byKeyId[keyId] = (progress.byKeyId[keyId] ?? 0) + 1;
      if (keyId === keyring.current.id) {
        progress.alreadyCurrent++;
        continue;
      }
      try {
        const secret = keyring.open(sealed, sealContext(row.id));
        writes.push({ id: row.id, from: sealed, to: keyring.seal(secret, sealContext(row.id)) });
      } catch (error) {
        progress.unreadable.push({ id: row.id, error: (error as Error).message });
      }
    }
    if (writes.length > 0 && !options.dryRun) {
      await store.db.transaction().execute(async (tx) => {
        for (const write of writes) {
          const result = await tx
            .updateTable('api_keys')
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
