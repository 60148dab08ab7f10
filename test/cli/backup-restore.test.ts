import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServedGateway, type ServedGateway } from '../support/served-gateway.js';
import { httpsClient, runCli, startServe, type CliResult } from './cli-process.js';
import { openStore, sqliteFileOf } from '../../src/store/database.js';
import { ApiKeyRepository } from '../../src/store/api-keys.js';
import { loadMasterKey } from '../../src/secrets/master-key.js';
import { Keyring } from '../../src/secrets/keyring.js';
import { digestSecret } from '../../src/secrets/secret-codec.js';

/**
 * Issue 31, item 3, as an operator runs it: the built gateway serves ~50 chat completions a
 * second while `gateway admin backup` copies its store; the backup is restored into a fresh data
 * dir with the master key beside it. Every request answered 200 before the backup started has its
 * usage row in the restored store (the gateway commits the row before the last byte), as have the
 * key and the project. Requests answered after the backup started may or may not be in it: the
 * copy is the store as of one moment during the command, which this test does not pin down.
 */
const REQUESTS = 150;
const PACE_MS = 20; // one request every 20 ms: 50 requests/s, ~3 s of load
const BACKUP_AFTER_ACKS = 40;

interface Acknowledged {
  requestId: string;
  beforeBackup: boolean;
}

describe('admin backup under load, then admin restore into a fresh data dir (issue 31, item 3)', () => {
  let gateway: ServedGateway;
  const work = mkdtempSync(join(tmpdir(), 'gateway-backup-'));
  const backupFile = join(work, 'gateway.backup');
  const freshDir = join(work, 'restored');
  const acknowledged: Acknowledged[] = [];
  const failures: string[] = [];
  let backupResult: CliResult;
  let projectId = '';

  before(
    async () => {
      gateway = await startServedGateway({ config: {} });
      const project = await gateway.client.call(`${gateway.serve.urls.console}/v1/projects`, 'POST', {
        token: gateway.consoleToken,
        body: { slug: 'backed-up', name: 'Backed up' },
      });
      assert.equal(project.status, 201, project.text);
      projectId = project.json.id as string;

      let backupStarted = false;
      let backupRun: Promise<CliResult> | undefined;
      const inFlight: Promise<void>[] = [];
      for (let sent = 0; sent < REQUESTS; sent++) {
        inFlight.push(
          chat(gateway, sent).then(
            (answer) => {
              if (answer.status !== 200) return void failures.push(`${answer.status} ${answer.text}`);
              acknowledged.push({ requestId: answer.requestId, beforeBackup: !backupStarted });
              if (!backupRun && acknowledged.length >= BACKUP_AFTER_ACKS) {
                backupStarted = true;
                backupRun = runCli('bin', ['admin', 'backup', backupFile], gateway.env, 60_000);
              }
            },
            (error: Error) => void failures.push(error.message),
          ),
        );
        await sleep(PACE_MS);
      }
      await Promise.all(inFlight);
      assert.ok(backupRun, `the backup never started: ${acknowledged.length} acknowledged, failures ${failures}`);
      backupResult = await backupRun;
    },
    { timeout: 240_000 },
  );
  after(async () => {
    await gateway?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers every request of the load with 200 while the backup runs', () => {
    assert.deepEqual(failures, []);
    assert.equal(acknowledged.length, REQUESTS);
    assert.ok(
      acknowledged.some((a) => !a.beforeBackup),
      'load went on after the backup started',
    );
  });

  it('backup prints one JSON line, warns that the master key is not in it, and writes the file 0600', () => {
    assert.equal(backupResult.status, 0, backupResult.stderr);
    const report = JSON.parse(backupResult.stdout.trim()) as { backup: string; bytes: number; migration: string };
    assert.equal(report.backup, backupFile);
    assert.equal(report.bytes, statSync(backupFile).size);
    assert.match(report.migration, /^\d{3}-/);
    assert.match(backupResult.stderr, /does not contain the master key/);
    assert.match(backupResult.stderr, /secret\.key/);
    assert.equal(statSync(backupFile).mode & 0o777, 0o600);
  });

  it('restore refuses the data dir of the running gateway, even with --force, and leaves its store serving', async () => {
    const refused = await runCli('bin', ['admin', 'restore', backupFile, '--force'], gateway.env);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /a gateway has .* open: stop it first/);
    const still = await chat(gateway, -1);
    assert.equal(still.status, 200, still.text);
  });

  it('restore refuses a file that is not a whole backup and creates no store', async () => {
    const damaged = join(work, 'damaged.backup');
    writeFileSync(damaged, readFileSync(backupFile).subarray(0, 4096 * 3));
    const emptyDir = join(work, 'never-restored');
    const refused = await runCli('bin', ['admin', 'restore', damaged], { GATEWAY_DATA_DIR: emptyDir });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /damaged|not a (readable )?SQLite database|not a gateway store/);
    assert.equal(existsSync(sqliteFileOf(emptyDir)), false);
  });

  it('restores into a fresh data dir where every usage row acknowledged before the backup, the key and the project are found', async () => {
    copyFileSync(join(gateway.dataDir, 'secret.key'), join(work, 'secret.key.kept'));
    const restored = await restoreInto(freshDir, join(work, 'secret.key.kept'));
    assert.equal(restored.status, 0, restored.stderr);
    const report = JSON.parse(restored.stdout.trim()) as { restored: string; master_key: string };
    assert.equal(report.restored, sqliteFileOf(freshDir));
    assert.equal(report.master_key, 'opens keys');

    const store = await openStore({ dataDir: freshDir });
    try {
      const rows = await store.db.selectFrom('usage_records').select('request_id').execute();
      const found = new Set(rows.map((row) => row.request_id));
      const before = acknowledged.filter((a) => a.beforeBackup);
      assert.ok(before.length >= BACKUP_AFTER_ACKS);
      const missing = before.filter((a) => !found.has(a.requestId)).map((a) => a.requestId);
      assert.deepEqual(missing, [], `${missing.length} of ${before.length} acknowledged rows missing`);

      const key = await store.db
        .selectFrom('api_keys')
        .select(['id', 'organization_id'])
        .where('key_digest', '=', digestSecret(gateway.key))
        .executeTakeFirst();
      assert.ok(key, 'the gateway key is in the restored store');
      const keys = new ApiKeyRepository(store, new Keyring([loadMasterKey(freshDir, undefined)]));
      assert.equal((await keys.reveal(key.organization_id, key.id))?.secret, gateway.key);

      const project = await store.db
        .selectFrom('projects')
        .select('slug')
        .where('id', '=', projectId)
        .executeTakeFirst();
      assert.equal(project?.slug, 'backed-up');
    } finally {
      await store.close();
    }
  });

  it('a gateway started on the restored data dir serves the restored key', async () => {
    const serve = await startServe('bin', {
      GATEWAY_DATA_DIR: freshDir,
      GATEWAY_PORT: '0',
      CONSOLE_PORT: '0',
      COLLECTOR_PORT: '0',
      LOG_LEVEL: 'warn',
    });
    const client = httpsClient(readFileSync(join(freshDir, 'tls', 'cert.pem'), 'utf8'));
    try {
      const models = await client.call(`${serve.urls.gateway}/v1/models`, 'GET', { token: gateway.key });
      assert.equal(models.status, 200, models.text);
    } finally {
      await serve.stop();
      await client.close();
    }
  });

  it('restore refuses to replace an existing store without --force, and replaces a stopped one with it', async () => {
    const refused = await runCli('bin', ['admin', 'restore', backupFile], { GATEWAY_DATA_DIR: freshDir });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /exists: restore into a fresh GATEWAY_DATA_DIR, or pass --force/);
    const forced = await runCli('bin', ['admin', 'restore', backupFile, '--force'], { GATEWAY_DATA_DIR: freshDir });
    assert.equal(forced.status, 0, forced.stderr);
  });

  it('with DATABASE_URL, backup prints the pg_dump procedure, exits 1 and writes nothing', async () => {
    const file = join(work, 'postgres.backup');
    const result = await runCli('bin', ['admin', 'backup', file], {
      GATEWAY_DATA_DIR: join(work, 'postgres-data'),
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      DATABASE_SCHEMA: 'tenant_a',
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /pg_dump --format=custom --no-owner --schema=tenant_a --file=gateway\.dump/);
    assert.match(result.stderr, /pg_restore/);
    assert.equal(existsSync(file), false);
  });

  async function restoreInto(dataDir: string, keptSecretKey: string): Promise<CliResult> {
    mkdirSync(dataDir, { recursive: true });
    // The documented procedure: the master key kept apart from the backup goes back beside the store.
    copyFileSync(keptSecretKey, join(dataDir, 'secret.key'));
    return runCli('bin', ['admin', 'restore', backupFile], { GATEWAY_DATA_DIR: dataDir });
  }
});

async function chat(
  gateway: ServedGateway,
  index: number,
): Promise<{ status: number; requestId: string; text: string }> {
  const answer = await gateway.client.call(`${gateway.serve.urls.gateway}/v1/chat/completions`, 'POST', {
    token: gateway.key,
    body: { model: 'local/echo', messages: [{ role: 'user', content: `request ${index}` }] },
  });
  return { status: answer.status, requestId: String(answer.headers['x-request-id']), text: answer.text };
}
