import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { spawnGateway, type GatewayChild } from '../support/gateway-children.js';
import { keySpend, waitFor } from '../support/chat-kit.js';
import { assertSpendMatchesRows, prepareData } from '../support/fault-kit.js';
import { monthOf } from '../../src/limits/budget-ledger.js';

/**
 * Crash safety (issue 9, item 2): a gateway process under steady load — 20 concurrent clients,
 * JSON and streamed, keys with and without a monthly ceiling — is killed with SIGKILL. The
 * clients record every request whose response completed (whole JSON body, or `data: [DONE]`)
 * with its request id. The process is started again on the same data, and:
 * - every completed request has exactly one usage row (zero lost);
 * - every key's spend equals the sum of its rows (nothing counted twice or missed);
 * - reservations left by the dead process (its in-flight requests, plus one planted row) are
 *   released by the restarted instance's sweeper once they expire.
 */
const CLIENTS = 20;
const LOAD_MS = 3_000;
const TTL_MS = 2_000;
const SWEEP_MS = 200;
const PRICING = { input_per_mtok: 1, output_per_mtok: 2 };

function config(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
    models: [{ id: 'test/crash', providers: [{ provider: 'mock', model: 'crash' }], pricing: PRICING }],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

interface LoadLog {
  completed: string[];
  started: number;
  failed: number;
}

/** One request; resolves true only when the whole response arrived. */
async function oneRequest(
  dispatcher: Agent,
  baseUrl: string,
  key: string,
  stream: boolean,
  requestId: string,
): Promise<boolean> {
  const response = await request(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    dispatcher,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({
      model: 'test/crash',
      messages: [{ role: 'user', content: `crash test ${requestId}` }],
      max_tokens: 16,
      stream,
    }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200 || response.headers['x-request-id'] !== requestId) return false;
  if (stream) return text.trimEnd().endsWith('data: [DONE]');
  const body = JSON.parse(text) as { object?: string; choices?: unknown[] };
  return body.object === 'chat.completion' && Array.isArray(body.choices);
}

/** CLIENTS loops until `stop` is set; each alternates JSON and streaming, keys with and without a ceiling. */
function driveLoad(child: GatewayChild, keys: string[], stop: { now: boolean }): { log: LoadLog; done: Promise<void> } {
  const log: LoadLog = { completed: [], started: 0, failed: 0 };
  const dispatcher = new Agent({ connect: { ca: child.ca }, connections: CLIENTS, keepAliveTimeout: 1_000 });
  const workers = Array.from({ length: CLIENTS }, async (_, worker) => {
    for (let i = 0; !stop.now; i++) {
      const requestId = `crash_${worker}_${i}_${randomBytes(3).toString('hex')}`;
      log.started++;
      try {
        const ok = await oneRequest(
          dispatcher,
          child.urls.gateway,
          keys[(worker + i) % keys.length]!,
          (worker + i) % 2 === 0,
          requestId,
        );
        if (ok) log.completed.push(requestId);
        else log.failed++;
      } catch {
        log.failed++;
        if (stop.now) break;
        await delay(20);
      }
    }
  });
  return { log, done: Promise.all(workers).then(() => dispatcher.destroy()) };
}

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

for (const kind of storeKinds()) {
  describe(`kill -9 under load (${kind})`, () => {
    it(
      "every completed request has its usage row, spend matches the rows, and the dead process's reservations are released after restart",
      { timeout: 60_000 },
      async () => {
        const mock = await startMockOpenAI();
        cleanups.push(() => mock.close());
        // Streams take ~60 ms (a pause between events), JSON answers ~20 ms: many requests are in flight at the kill.
        mock.setScenario((req) =>
          req.body?.stream
            ? { chunkDelayMs: 8, usage: { inputTokens: 20, outputTokens: 6 } }
            : { hangBeforeHeadersMs: 20, usage: { inputTokens: 20, outputTokens: 6 } },
        );
        const data = await prepareData(kind, config(mock), {
          MOCK_KEY: 'sk-mock',
          GATEWAY_RESERVATION_TTL_MS: String(TTL_MS),
          GATEWAY_SWEEP_INTERVAL_MS: String(SWEEP_MS),
        });
        cleanups.push(async () => {
          await data.store.close();
          rmSync(data.dataDir, { recursive: true, force: true });
          if (data.schema) await dropSchema(data.schema);
        });

        const first = await spawnGateway(data.env);
        cleanups.push(() => first.stop());
        const create = async (body: Record<string, unknown>) => {
          const created = await first.console('POST', `/v1/organizations/${data.organization.id}/api_keys`, {
            token: data.organization.token,
            body,
          });
          assert.equal(created.status, 201, created.text);
          return created.json as { id: string; key: string };
        };
        const open = await create({ name: 'no ceiling' });
        const capped = await create({ name: 'ceiling', max_usage: 1_000 });

        const stop = { now: false };
        const load = driveLoad(first, [open.key, capped.key], stop);
        await delay(LOAD_MS);
        const inFlightAtKill = load.log.started - load.log.completed.length - load.log.failed;
        first.child.kill('SIGKILL');
        await waitFor(() => first.child.exitCode !== null || first.child.signalCode !== null, {
          what: 'the gateway to die',
        });
        stop.now = true;
        await load.done;
        assert.equal(first.child.signalCode, 'SIGKILL');
        const completed = load.log.completed;
        assert.ok(completed.length >= 30, `steady load completed ${completed.length} requests`);

        // Reservations the dead process left: its in-flight requests on the capped key, plus one
        // planted row (a request admitted just before the kill) so the check never depends on timing.
        const month = monthOf(Date.now());
        const planted = 123_456;
        await data.store.db
          .updateTable('key_spend')
          .set((eb) => ({ reserved_micro_usd: eb('reserved_micro_usd', '+', planted) }))
          .where('api_key_id', '=', capped.id)
          .where('month', '=', month)
          .execute();
        await data.store.db
          .insertInto('budget_reservations')
          .values({
            id: randomUUID(),
            api_key_id: capped.id,
            month,
            amount_micro_usd: planted,
            expires_at: Date.now() + TTL_MS,
          })
          .execute();
        const leftBehind = await data.store.db
          .selectFrom('budget_reservations')
          .select('id')
          .where('api_key_id', '=', capped.id)
          .execute();
        assert.ok(leftBehind.length >= 1);
        assert.ok((await keySpend(data.store, capped.id)).reserved >= planted);

        // Zero lost: every completed request id has exactly one usage row, before any restart.
        const rows = await data.store.db
          .selectFrom('usage_records')
          .select(['request_id', 'status_code'])
          .where('api_key_id', 'in', [open.id, capped.id])
          .execute();
        const byRequest = new Map<string, number>();
        for (const row of rows) byRequest.set(row.request_id, (byRequest.get(row.request_id) ?? 0) + 1);
        const lost = completed.filter((id) => !byRequest.has(id));
        assert.deepEqual(lost, [], `${lost.length} of ${completed.length} completed requests have no usage row`);
        const doubled = [...byRequest].filter(([, n]) => n > 1);
        assert.deepEqual(doubled, [], 'one row per request');
        for (const id of completed) assert.equal(rows.find((r) => r.request_id === id)!.status_code, 200);

        // Restart on the same data: the sweeper of the new process releases what the dead one held.
        const second = await spawnGateway(data.env);
        cleanups.push(() => second.stop());
        const released = await waitFor(
          async () => {
            const rest = await data.store.db
              .selectFrom('budget_reservations')
              .select('id')
              .where('api_key_id', '=', capped.id)
              .execute();
            const spend = await keySpend(data.store, capped.id);
            return rest.length === 0 && spend.reserved === 0 ? spend : undefined;
          },
          { timeoutMs: TTL_MS + 5_000, what: "the dead process's reservations released" },
        );
        assert.equal(released.reserved, 0);
        await assertSpendMatchesRows(data.store, open.id);
        await assertSpendMatchesRows(data.store, capped.id);

        // The restarted instance serves both keys.
        for (const key of [open.key, capped.key]) {
          const again = await second.gateway('POST', '/v1/chat/completions', {
            token: key,
            body: { model: 'test/crash', messages: [{ role: 'user', content: 'after' }], max_tokens: 16 },
          });
          assert.equal(again.status, 200, again.text);
        }
        console.log(
          `crash (${kind}): ${completed.length} completed, ${load.log.failed} failed, ~${inFlightAtKill} in flight at the kill, ${leftBehind.length} reservations left behind, all rows present`,
        );
        await second.stop();
      },
    );
  });
}
