import { readSettings } from '../config/settings.js';
import { Keyring } from '../secrets/keyring.js';
import { loadMasterKeys, masterKeySource } from '../secrets/master-key.js';
import { openStore } from '../store/database.js';
import { resealStoredSecrets } from '../store/api-key-resealing.js';

export const ROTATE_USAGE = `usage: gateway admin rotate-master-key [--batch-size <n>] [--check]

Re-seals every stored secret (gateway keys' reveal copies, organizations' provider keys,
alert rules' signing secrets) with
the current master key, the first key of the keyring, in batches of --batch-size rows (default 200) while the gateways serve. Values
already sealed by the current key are skipped: the command is idempotent, and an interrupted run
is resumed by running it again. Prints one JSON line; exits 1 while any value is not sealed by the
current key (--check) or cannot be opened by any key of the keyring.

Before running it, every instance must accept the new key and seal with it (keyring reloaded:
SIGHUP, or POST /v1/admin/reload on the console); after it reports needs_resealing 0, the old key
may be removed from the keyring and the instances reloaded again. Procedure: docs/scale-out.md,
"Master-key rotation". Keys: GATEWAY_SECRET_KEY_FILE, GATEWAY_SECRET_KEY (+ _PREVIOUS) or
$GATEWAY_DATA_DIR/secret.key (docs/configuration.md).`;

export async function rotateMasterKey(input: { batchSize: number; check: boolean }): Promise<void> {
  if (!Number.isInteger(input.batchSize) || input.batchSize < 1 || input.batchSize > 10_000)
    throw new Error(`--batch-size must be an integer from 1 to 10000\n${ROTATE_USAGE}`);
  const settings = readSettings();
  const keyring = new Keyring(loadMasterKeys(masterKeySource(settings)));
  const store = await openStore({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    schema: settings.databaseSchema,
  });
  try {
    const progress = await resealStoredSecrets(store, keyring, { batchSize: input.batchSize, dryRun: input.check });
    const stale = Object.entries(progress.byKeyId)
      .filter(([id]) => id !== keyring.current.id)
      .reduce((sum, [, count]) => sum + count, 0);
    // A value changed meanwhile may have been sealed by an instance not yet reloaded: counted until a rerun skips it.
    const needsResealing = stale - progress.resealed;
    process.stdout.write(
      JSON.stringify({
        current_key_id: keyring.current.id,
        keyring: keyring.ids(),
        sealed_by_key_id: progress.byKeyId,
        resealed: progress.resealed,
        already_current: progress.alreadyCurrent,
        changed_meanwhile: progress.changedMeanwhile,
        unreadable: progress.unreadable.length,
        needs_resealing: needsResealing,
      }) + '\n',
    );
    for (const { table, id, error } of progress.unreadable) process.stderr.write(`${table} ${id}: ${error}\n`);
    if (needsResealing > 0 || progress.unreadable.length > 0) process.exitCode = 1;
  } finally {
    await store.close();
  }
}
