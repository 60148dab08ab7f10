import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { dropSchema } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { spawnGateway, type GatewayChild } from '../support/gateway-children.js';
import { assertGatewayError, header, usageRowOf, waitFor } from '../support/chat-kit.js';
import {
  assertNoLeakedReservation,
  assertSpendMatchesRows,
  prepareData,
  startDatabaseProxy,
  timed,
  type DatabaseProxy,
  type PreparedData,
} from '../support/fault-kit.js';

/**
 * The database goes away and comes back (issue 9, item 3). The gateway runs as its own process
 * (a SQLite busy wait blocks the event loop of the process holding it, and a crash must be seen
 * as a dead child, not a dead test). Each case checks the client's answer, how long it took,
 * that no reservation is left behind, and that the process still serves afterwards.
 */
const PRICING = { input_per_mtok: 1, output_per_mtok: 2 };
const body = (content = 'db fault') => ({ model: 'test/db', messages: [{ role: 'user', content }], max_tokens: 16 });

function config(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
    models: [{ id: 'test/db', providers: [{ provider: 'mock', model: 'db' }], pricing: PRICING }],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

interface Fixture {
  data: PreparedData;
  child: GatewayChild;
  capped: { id: string; key: string };
  open: { id: string; key: string };
}

async function start(mock: MockUpstream, kind: 'sqlite' | 'postgres', databaseUrl?: string): Promise<Fixture> {
  // Keys stay cached for a minute, so a request reaches the reservation and the usage writer while the database is away.
  const data = await prepareData(kind, config(mock), { MOCK_KEY: 'sk-mock', GATEWAY_KEY_CACHE_TTL_MS: '60000' });
  const child = await spawnGateway({ ...data.env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
  const create = async (extra: Record<string, unknown>) => {
    const created = await child.console('POST', `/v1/organizations/${data.organization.id}/api_keys`, {
      token: data.organization.token,
      body: { name: 'db', ...extra },
    });
    assert.equal(created.status, 201, created.text);
    return created.json as { id: string; key: string };
  };
  const capped = await create({ max_usage: 1_000 });
  const open = await create({});
  for (const key of [capped, open])
    assert.equal((await child.gateway('POST', '/v1/chat/completions', { token: key.key, body: body() })).status, 200);
  return { data, child, capped, open };
}

async function stopFixture(f: Fixture | undefined): Promise<void> {
  if (!f) return;
  await f.child.stop();
  await f.data.store.close();
  rmSync(f.data.dataDir, { recursive: true, force: true });
  if (f.data.schema) await dropSchema(f.data.schema);
}

function assertAlive(f: Fixture): void {
  assert.equal(f.child.child.exitCode, null, `the gateway process exited; stderr: ${f.child.stderr().slice(-2000)}`);
  assert.equal(f.child.child.signalCode, null);
}

describe(
  'PostgreSQL goes away and comes back',
  { timeout: 60_000, skip: process.env.GATEWAY_TEST_DATABASE_URL ? false : 'GATEWAY_TEST_DATABASE_URL is not set' },
  () => {
    let mock: MockUpstream;
    let proxy: DatabaseProxy;
    let f: Fixture;
    before(async () => {
      mock = await startMockOpenAI();
      proxy = await startDatabaseProxy(process.env.GATEWAY_TEST_DATABASE_URL!);
      f = await start(mock, 'postgres', proxy.url);
    });
    after(async () => {
      await proxy?.up().catch(() => undefined);
      await stopFixture(f);
      await proxy?.close();
      await mock?.close();
    });

    it('every pooled connection reset while idle (database restart): the process lives and the next request succeeds', async () => {
      assert.ok(proxy.connections() > 0, 'the gateway holds pooled connections');
      await proxy.down();
      await proxy.up();
      await delay(100);
      assertAlive(f);
      // A connection error here means the process died after the reset: say how, with its last words.
      const result = await f.child
        .gateway('POST', '/v1/chat/completions', { token: f.capped.key, body: body() })
        .catch((error: unknown) => {
          const { exitCode, signalCode } = f.child.child;
          throw new Error(
            `${String(error)}; gateway exit code ${exitCode}, signal ${signalCode}; stderr: ${f.child.stderr().slice(-2000)}`,
          );
        });
      assert.equal(result.status, 200, result.text);
      await assertNoLeakedReservation(f.data.store, f.capped.id);
    });

    it('while the database is away: a capped key gets 503 database_unavailable with retry-after at once; an uncapped cached key is answered and its row written once the database is back', async () => {
      await proxy.down();
      try {
        const refused = await timed(() =>
          f.child.gateway('POST', '/v1/chat/completions', { token: f.capped.key, body: body() }),
        );
        assertGatewayError(refused.value, {
          status: 503,
          code: 'database_unavailable',
          type: 'server_error',
          param: null,
        });
        assert.equal(header(refused.value, 'retry-after'), '1');
        assert.ok(refused.ms < 1_000, `answered in ${refused.ms.toFixed(0)} ms`);
        // Anthropic-shaped route: same code in Anthropic's envelope.
        const messages = await f.child.gateway('POST', '/v1/messages', {
          headers: { 'x-api-key': f.capped.key },
          body: { model: 'test/db', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] },
        });
        assert.equal(messages.status, 503, messages.text);
        assert.equal(messages.json.type, 'error');
        assert.equal(messages.json.error.code, 'database_unavailable');

        // No ceiling: nothing to reserve, so the request is served; its row cannot be committed,
        // so the answer waits for it at most 2 s (metering.ts MAX_COMMIT_WAIT_MS), then completes.
        const served = await timed(() =>
          f.child.gateway('POST', '/v1/chat/completions', { token: f.open.key, body: body('during the outage') }),
        );
        assert.equal(served.value.status, 200, served.value.text);
        assert.ok(served.ms >= 1_900 && served.ms < 3_500, `answered after ${served.ms.toFixed(0)} ms`);
        assertAlive(f);
        await proxy.up();
        // The queued row is written by the writer's retry once the database is back.
        const row = await usageRowOf(f.data.store, header(served.value, 'x-request-id')!, 5_000);
        assert.equal(row.status_code, 200);
      } finally {
        await proxy.up().catch(() => undefined);
      }
      const again = await f.child.gateway('POST', '/v1/chat/completions', { token: f.capped.key, body: body() });
      assert.equal(again.status, 200, again.text);
      await assertNoLeakedReservation(f.data.store, f.capped.id);
      await assertSpendMatchesRows(f.data.store, f.capped.id);
      await assertSpendMatchesRows(f.data.store, f.open.id);
    });

    it('connections reset while requests hold reservations and wait for the upstream: they complete, rows written, reservations settled', async () => {
      mock.setScenario({ hangBeforeHeadersMs: 400 });
      try {
        const pending = Array.from({ length: 6 }, (_, i) =>
          f.child.gateway('POST', '/v1/chat/completions', { token: f.capped.key, body: body(`mid ${i}`) }),
        );
        await waitFor(
          () => mock.requests.filter((r) => r.body?.messages?.[0]?.content?.startsWith('mid ')).length === 6,
          { what: 'all six at the upstream' },
        );
        await proxy.down();
        await delay(150);
        await proxy.up();
        const results = await Promise.all(pending);
        for (const r of results) assert.equal(r.status, 200, r.text);
        for (const r of results) await usageRowOf(f.data.store, header(r, 'x-request-id')!);
      } finally {
        mock.setScenario({});
      }
      assertAlive(f);
      await assertNoLeakedReservation(f.data.store, f.capped.id);
      await assertSpendMatchesRows(f.data.store, f.capped.id);
    });
  },
);

describe('SQLite locked by another connection', { timeout: 30_000 }, () => {
  let mock: MockUpstream;
  let f: Fixture;
  before(async () => {
    mock = await startMockOpenAI();
    f = await start(mock, 'sqlite');
  });
  after(async () => {
    await stopFixture(f);
    await mock?.close();
  });

  it('an exclusive lock held for 1.5 s (under the 5 s busy timeout) delays requests, which then succeed; nothing leaks', async () => {
    const locker = new SQLite(join(f.data.dataDir, 'gateway.sqlite'));
    locker.exec('BEGIN EXCLUSIVE');
    const lockedAt = performance.now();
    const pending = Array.from({ length: 4 }, (_, i) =>
      timed(() =>
        f.child.gateway('POST', '/v1/chat/completions', {
          token: i % 2 ? f.open.key : f.capped.key,
          body: body(`locked ${i}`),
        }),
      ),
    );
    await delay(1_500);
    locker.exec('COMMIT');
    locker.close();
    const results = await Promise.all(pending);
    for (const { value, ms } of results) {
      assert.equal(value.status, 200, value.text);
      assert.ok(
        ms < 1_500 + 2_500,
        `answered ${ms.toFixed(0)} ms after the lock (released at ${(performance.now() - lockedAt).toFixed(0)} ms)`,
      );
      await usageRowOf(f.data.store, header(value, 'x-request-id')!);
    }
    assertAlive(f);
    await assertNoLeakedReservation(f.data.store, f.capped.id);
    await assertSpendMatchesRows(f.data.store, f.capped.id);
    await assertSpendMatchesRows(f.data.store, f.open.id);
  });
});
