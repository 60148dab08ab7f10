import { sql } from 'kysely';
import type { Store } from './database.js';
import type { Keyring } from '../secrets/keyring.js';
import { sealContext } from './api-keys.js';
import { alertSealContext } from './alert-rules.js';
import { providerKeySealContext } from './provider-keys.js';

/** A column of sealed values: its table (keyed by `id`), the column, and the sealing context of a row. */
export interface SealedColumn {
  table: 'api_keys' | 'alert_rules' | 'organization_provider_keys';
  column: 'key_ciphertext' | 'secret_ciphertext';
  context: (id: string) => string;
}

/** Gateway keys' reveal copies. */
export const API_KEY_SECRETS: SealedColumn = { table: 'api_keys', column: 'key_ciphertext', context: sealContext };
/** Alert rules' signing secrets (docs/alerts.md). */
export const ALERT_RULE_SECRETS: SealedColumn = {
  table: 'alert_rules',
  column: 'secret_ciphertext',
  context: alertSealContext,
};
/** Organizations' own provider keys (BYOK, migration 029, docs/byok.md). */
export const PROVIDER_KEY_SECRETS: SealedColumn = {
  table: 'organization_provider_keys',
  column: 'key_ciphertext',
  context: providerKeySealContext,
};
/** Every sealed column, in the order `gateway admin rotate-master-key` re-seals them. */
export const SEALED_COLUMNS: readonly SealedColumn[] = [API_KEY_SECRETS, PROVIDER_KEY_SECRETS, ALERT_RULE_SECRETS];

export interface ResealProgress {
  /** Values re-sealed with the current key by this run. */
  resealed: number;
  /** Values already sealed by the current key (a previous or interrupted run, or a key made since). */
  alreadyCurrent: number;
  /** Values changed or deleted between the read and the write (their new value was sealed by a gateway). */
  changedMeanwhile: number;
  /** Rows whose value no key of the ring opens, with why: rotation cannot finish while there are any. */
  unreadable: Array<{ table: SealedColumn['table']; id: string; error: string }>;
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

/** Re-seals the gateway keys' sealed copies (`resealColumn` of API_KEY_SECRETS). */
export function resealApiKeys(store: Store, keyring: Keyring, options: ResealOptions): Promise<ResealProgress> {
  return resealColumn(store, keyring, API_KEY_SECRETS, options);
}

/** Every sealed value of the store (SEALED_COLUMNS in order), one progress for all. */
export async function resealStoredSecrets(
  store: Store,
  keyring: Keyring,
  options: ResealOptions,
): Promise<ResealProgress> {
  const progress = emptyProgress();
  for (const target of SEALED_COLUMNS) await resealColumn(store, keyring, target, options, progress);
  return progress;
}

function emptyProgress(): ResealProgress {
  return { resealed: 0, alreadyCurrent: 0, changedMeanwhile: 0, unreadable: [], byKeyId: {} };
}

/**
 * Re-seals every sealed value of `target` with the keyring's current key, a batch of rows (by id) at a
 * time, each batch one transaction, while gateways keep serving. A row is written only if its
 * value is still the one read (compare-and-set), so a key created, deleted or re-sealed by a
 * gateway meanwhile is never overwritten. Idempotent: values already sealed by the current key
 * are skipped, so an interrupted run is resumed by running it again.
 */
export async function resealColumn(
  store: Store,
  keyring: Keyring,
  target: SealedColumn,
  options: ResealOptions,
  progress: ResealProgress = emptyProgress(),
): Promise<ResealProgress> {
  const table = sql.table(target.table);
  const column = sql.ref(target.column);
  let after = '';
  for (;;) {
    const { rows } = await sql<{ id: string; sealed: string }>`select id, ${column} as sealed from ${table}
      where ${column} is not null and id > ${after} order by id limit ${options.batchSize}`.execute(store.db);
    if (rows.length === 0) return progress;
    after = rows.at(-1)!.id;
    const writes: Array<{ id: string; from: string; to: string }> = [];
    for (const row of rows) {
      const sealed = row.sealed;
      const keyId = sealerOf(keyring, sealed, target.context(row.id));
      progress.byKeyId[keyId] = (progress.byKeyId[keyId] ?? 0) + 1;
      if (keyId === keyring.current.id) {
        progress.alreadyCurrent++;
        continue;
      }
      try {
        const secret = keyring.open(sealed, target.context(row.id));
        writes.push({ id: row.id, from: sealed, to: keyring.seal(secret, target.context(row.id)) });
      } catch (error) {
        progress.unreadable.push({ table: target.table, id: row.id, error: (error as Error).message });
      }
    }
    if (writes.length > 0 && !options.dryRun) {
      await store.db.transaction().execute(async (tx) => {
        for (const write of writes) {
          const result = await sql`update ${table} set ${column} = ${write.to}
            where id = ${write.id} and ${column} = ${write.from}`.execute(tx);
          if (Number(result.numAffectedRows) === 1) progress.resealed++;
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
