// Upgrades without downtime (issue 31 item 2, docs/scale-out.md "Upgrades without downtime"): the
// previous release, built from its tag in a temporary worktree, serves a fresh PostgreSQL schema
// under steady load; the current build (`npm run build`'s dist/) starts on the same schema and
// migrates it while the old one serves; the load then goes to both. No request fails on either,
// every acknowledged request has its usage row, and keys made on one work on the other.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { Agent, request } from 'undici';
import { buildDist, REPO_ROOT } from '../cli/cli-process.js';
import { dropSchema } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { fileAtRelease, previousRelease } from '../support/previous-release.js';
import { buildRelease, runBuilt, serveBuilt, type BuiltGateway, type ReleaseBuild } from '../support/release-build.js';
import { MIGRATION_NAMES } from '../../src/store/migrations/index.js';

const DATABASE_URL = process.env.GATEWAY_TEST_DATABASE_URL;
const release = previousRelease();
const skip = !DATABASE_URL
  ? 'needs PostgreSQL: set GATEWAY_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)'
  : !release.found
    ? release.why
    : false;
const releaseTag = release.found ? release.tag : '';
const releaseToleratesNewerMigrations =
  release.found && fileAtRelease(release.commit, 'src/store/migrations/newer-migrations.ts') !== undefined;

const WORKERS = 6;
const OLD_ALONE_MS = 3_000;
const BOTH_MS = 8_000;

interface Instance {
  name: 'previous' | 'current';
  gateway: BuiltGateway;
  dispatcher: Agent;
  dataDir: string;
}

interface LoadLog {
  acknowledged: string[];
  failures: string[];
  served: Record<Instance['name'], number>;
}

async function chat(instance: Instance, key: string, requestId: string, stream: boolean): Promise<string | undefined> {
  try {
    const response = await request(`${instance.gateway.urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: instance.dispatcher,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({
        model: 'test/upgrade',
        messages: [{ role: 'user', content: `upgrade ${requestId}` }],
        max_tokens: 16,
        stream,
      }),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) return `${instance.name}: ${response.statusCode} ${text.slice(0, 300)}`;
    if (response.headers['x-request-id'] !== requestId) return `${instance.name}: request id not echoed`;
    if (stream ? !text.trimEnd().endsWith('data: [DONE]') : JSON.parse(text).object !== 'chat.completion')
      return `${instance.name}: incomplete answer ${text.slice(-200)}`;
    return undefined;
  } catch (error) {
    return `${instance.name}: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}`;
  }
}

/** WORKERS closed loops over the instances and keys `targets()` and `keys` name at each request. */
function driveLoad(targets: () => Instance[], keys: string[], stop: { now: boolean }) {
  const log: LoadLog = { acknowledged: [], failures: [], served: { previous: 0, current: 0 } };
  const done = Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      for (let i = 0; !stop.now; i++) {
        const instances = targets();
        const instance = instances[(worker + i) % instances.length]!;
        const requestId = `upg_${worker}_${i}_${randomBytes(3).toString('hex')}`;
        const failure = await chat(instance, keys[(worker + i) % keys.length]!, requestId, i % 2 === 0);
        if (failure) log.failures.push(failure);
        else {
          log.acknowledged.push(requestId);
          log.served[instance.name]++;
        }
        await delay(10);
      }
    }),
  );
  return { log, done };
}

function config(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
    models: [
      {
        id: 'test/upgrade',
        providers: [{ provider: 'mock', model: 'upgrade' }],
        pricing: { input_per_mtok: 1, output_per_mtok: 2 },
      },
    ],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

describe('rolling upgrade from the previous release on one PostgreSQL', { skip }, () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  let previous: ReleaseBuild;
  after(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
  });
  before(() => {
    assert.ok(release.found);
    buildDist();
    previous = buildRelease(release.commit);
    cleanups.push(() => previous.remove());
    console.log(
      `previous release ${release.tag} (${release.commit.slice(0, 12)}, from ${release.source}) built in ${previous.buildMs} ms, dependencies ${previous.dependencies}`,
    );
  });

  it(
    'serves every request on both versions while the current one migrates, and loses no usage row',
    { timeout: 300_000 },
    async () => {
      const mock = await startMockOpenAI();
      cleanups.push(() => mock.close());
      mock.setScenario((req) => {
        mock.requests.length = 0;
        return req.body?.stream
          ? { chunkDelayMs: 5, usage: { inputTokens: 20, outputTokens: 6 } }
          : { hangBeforeHeadersMs: 10, usage: { inputTokens: 20, outputTokens: 6 } };
      });
      const schema = `t_upgrade_${randomBytes(5).toString('hex')}`;
      cleanups.push(() => dropSchema(schema));
      const shared = mkdtempSync(join(tmpdir(), 'gateway-upgrade-'));
      cleanups.push(() => rmSync(shared, { recursive: true, force: true }));
      writeFileSync(join(shared, 'config.json'), JSON.stringify(config(mock)));
      const secretKey = randomBytes(32).toString('hex');
      const envFor = (name: string) => ({
        GATEWAY_DATA_DIR: join(shared, name),
        GATEWAY_SECRET_KEY: secretKey,
        GATEWAY_CONFIG: join(shared, 'config.json'),
        DATABASE_URL: DATABASE_URL!,
        DATABASE_SCHEMA: schema,
        MOCK_KEY: 'sk-mock',
      });

      const start = async (name: Instance['name'], root: string): Promise<Instance> => {
        const gateway = await serveBuilt(root, envFor(name));
        cleanups.push(() => gateway.stop());
        const ca = readFileSync(join(shared, name, 'tls', 'cert.pem'), 'utf8');
        const dispatcher = new Agent({ connect: { ca }, connections: WORKERS * 2, keepAliveTimeout: 2_000 });
        cleanups.push(() => dispatcher.close());
        return { name, gateway, dispatcher, dataDir: join(shared, name) };
      };

      // The previous release alone, on a fresh schema: it creates the tables as it knows them.
      const boot = runBuilt(previous.root, ['admin', 'bootstrap', '--org', 'upgrade'], envFor('previous'));
      assert.equal(boot.status, 0, boot.stderr);
      const org = JSON.parse(boot.stdout.trim()) as { organization_id: string; console_token: string };
      const old = await start('previous', previous.root);
      const createKey = async (on: Instance, body: Record<string, unknown>) => {
        const response = await request(`${on.gateway.urls.console}/v1/organizations/${org.organization_id}/api_keys`, {
          method: 'POST',
          dispatcher: on.dispatcher,
          headers: { authorization: `Bearer ${org.console_token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const json = (await response.body.json()) as { key?: string };
        assert.equal(response.statusCode, 201, JSON.stringify(json));
        return json.key!;
      };
      const keys = [
        await createKey(old, { name: 'open' }),
        await createKey(old, { name: 'capped', max_usage: 10_000_000 }),
        await createKey(old, { name: 'third' }),
      ];
      const appliedBefore = await appliedMigrations(schema);

      let targets: Instance[] = [old];
      const stop = { now: false };
      const load = driveLoad(() => targets, keys, stop);
      await delay(OLD_ALONE_MS);
      const servedByOldAlone = load.log.served.previous;

      // The current build starts on the same schema and migrates it while the old one serves.
      const migrationStarted = Date.now();
      const current = await start('current', REPO_ROOT);
      const listenedAfterMs = Date.now() - migrationStarted;
      targets = [old, current];

      // Keys made on one version authenticate on the other, under the same load.
      const madeOnCurrent = await createKey(current, { name: 'made on current' });
      const madeOnOld = await createKey(old, { name: 'made on previous' });
      keys.push(madeOnCurrent, madeOnOld);
      const crossed = [
        await chat(old, madeOnCurrent, `upg_cross_old_${randomBytes(3).toString('hex')}`, false),
        await chat(current, madeOnOld, `upg_cross_cur_${randomBytes(3).toString('hex')}`, true),
      ];
      assert.deepEqual(crossed, [undefined, undefined], 'a key made on one version works on the other');

      await delay(BOTH_MS);
      stop.now = true;
      await load.done;
      assert.ok(old.gateway.alive(), `the previous release kept running; stderr: ${old.gateway.stderr()}`);
      // SIGTERM drains and flushes each one's usage rows before it exits.
      assert.equal(await current.gateway.stop(), 0, current.gateway.stderr());
      assert.equal(await old.gateway.stop(), 0, old.gateway.stderr());

      const { acknowledged, failures, served } = load.log;
      const appliedAfter = await appliedMigrations(schema);
      const ranByCurrent = appliedAfter.filter((name) => !appliedBefore.includes(name));
      console.log(
        `upgrade ${releaseTag} → current: ${acknowledged.length} requests acknowledged (previous ${served.previous}, ${servedByOldAlone} of them before the current build started; current ${served.current}), ` +
          `${failures.length} failed; the current build listened ${listenedAfterMs} ms after its start, running ${ranByCurrent.length} migration(s) ${JSON.stringify(ranByCurrent)}`,
      );
      assert.deepEqual(failures, [], 'no request failed on either version');
      assert.ok(servedByOldAlone >= 20, `steady load on the previous release alone (${servedByOldAlone})`);
      assert.ok(
        served.current >= 20 && served.previous - servedByOldAlone >= 20,
        `load on both (${JSON.stringify(served)})`,
      );
      assert.deepEqual(
        MIGRATION_NAMES.filter((name) => !appliedAfter.includes(name)),
        [],
        'the current build applied all its migrations',
      );
      // An instance of the previous version restarts on the migrated schema (a crash, a node
      // drained mid-roll). A release from before start-up tolerated newer migrations (v0.1.0) refuses
      // a schema holding one it does not know: docs/scale-out.md says to replace, not restart, it.
      if (releaseToleratesNewerMigrations || ranByCurrent.length === 0) {
        const restarted = await start('previous', previous.root);
        assert.equal(
          await chat(restarted, madeOnCurrent, `upg_restart_${randomBytes(3).toString('hex')}`, false),
          undefined,
          'the restarted previous version serves a key made on the current one',
        );
        assert.equal(await restarted.gateway.stop(), 0, restarted.gateway.stderr());
      } else {
        console.log(
          `${releaseTag} predates tolerating newer migrations: its restart on ${JSON.stringify(ranByCurrent)} not tried`,
        );
      }
      const missing = await requestsWithoutUsageRow(schema, [...acknowledged]);
      assert.deepEqual(
        missing,
        [],
        `${missing.length} of ${acknowledged.length} acknowledged requests have no usage row`,
      );
    },
  );
});

async function withDatabase<T>(schema: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function appliedMigrations(schema: string): Promise<string[]> {
  return withDatabase(schema, async (client) =>
    (await client.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name),
  );
}

function requestsWithoutUsageRow(schema: string, requestIds: string[]): Promise<string[]> {
  return withDatabase(schema, async (client) => {
    const rows = await client.query<{ request_id: string }>(
      'select request_id from usage_records where request_id = any($1::text[])',
      [requestIds],
    );
    const found = new Set(rows.rows.map((row) => row.request_id));
    return requestIds.filter((id) => !found.has(id));
  });
}
