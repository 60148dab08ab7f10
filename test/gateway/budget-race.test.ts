import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { dropSchema, startHarness, storeKinds, type Harness, type HttpResult } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { keySpend, waitFor } from '../support/chat-kit.js';
import { spawnGateway, type GatewayChild } from '../support/gateway-children.js';
import { openStore, type Store } from '../../src/store/database.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';
import { BudgetLedger, monthOf } from '../../src/limits/budget-ledger.js';
import { worstCaseMicroUsd } from '../../src/catalogue/cost.js';

/**
 * The ceiling covers exactly 5 requests. Output costs $190,000 per MTok and every request asks
 * for max_tokens 1, so its worst case (admission.ts: prompt estimate × 1.1 at the input price
 * plus max_tokens at the output price, cost.ts) is 0 + 1 × 190,000 micro-USD = $0.19, whatever
 * the prompt: 5 × 0.19 = 0.95 fits under $1, 6 × 0.19 = 1.14 does not. The mock bills exactly
 * that worst case (1 output token), so settled spend equals the reservations.
 */
const PRICING = { input_per_mtok: 0, output_per_mtok: 190_000 };
const MODEL = 'test/priced';
const CEILING_USD = 1;
const PER_REQUEST = worstCaseMicroUsd(PRICING, 1_000, 1);
const FITS = Math.floor((CEILING_USD * 1_000_000) / PER_REQUEST);
const CONCURRENCY = 50;
const body = { model: MODEL, messages: [{ role: 'user', content: 'spend' }], max_tokens: 1 };
const BIG_MODEL = 'test/big';
const BIG_PRICING = { input_per_mtok: 1.25, output_per_mtok: 10 };
/** What the mock bills as the prompt: far more than the gateway counts for "spend", the bound's worst case. */
const BILLED_PROMPT = 1_000;

function config(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
    models: [
      { id: MODEL, providers: [{ provider: 'mock-openai', model: 'priced' }], pricing: PRICING },
      // gpt-5-like: one call's worst case without max_tokens ($1.28 of output) is more than $1.
      {
        id: BIG_MODEL,
        providers: [{ provider: 'mock-openai', model: 'big' }],
        pricing: BIG_PRICING,
        max_output_tokens: 128_000,
      },
    ],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

/** Mock answers take a little while, so all 50 requests hold their reservations at once. */
function slowBillingMock(mock: MockUpstream): void {
  mock.setScenario({ usage: { inputTokens: 5, outputTokens: 1 }, hangBeforeHeadersMs: 50 });
}

function assertRaceOutcome(results: HttpResult[], mock: MockUpstream): void {
  const statuses = results.map((r) => r.status);
  const ok = statuses.filter((s) => s === 200).length;
  const refused = results.filter((r) => r.status === 429);
  assert.equal(
    ok + refused.length,
    CONCURRENCY,
    `only 200 and 429: ${JSON.stringify(statuses)} ${results.find((r) => r.status !== 200 && r.status !== 429)?.text ?? ''}`,
  );
  assert.ok(ok <= FITS, `${ok} requests succeeded; the ceiling covers ${FITS}`);
  assert.equal(ok, FITS, 'every request that fits is served');
  for (const r of refused) {
    assert.equal(r.json.error.code, 'usage_limit_exceeded');
    assert.equal(r.json.error.type, 'rate_limit_error');
  }
  assert.equal(mock.requests.length, ok, 'refused requests never reach the upstream');
}

describe('budget race: 50 concurrent requests on a key whose monthly ceiling covers 5', () => {
  it('the arithmetic of this test holds', () => {
    assert.equal(PER_REQUEST, 190_000);
    assert.equal(FITS, 5);
  });

  for (const store of storeKinds()) {
    describe(`one process (${store})`, () => {
      let h: Harness;
      let mock: MockUpstream;
      before(async () => {
        mock = await startMockOpenAI();
        h = await startHarness({ store, config: config(mock), env: { MOCK_OPENAI_KEY: 'sk-mock' } });
      });
      after(async () => {
        await h.stop();
        await mock.close();
      });

      it('at most 5 succeed, the rest get 429 usage_limit_exceeded, spend stays under the ceiling', async () => {
        const org = await h.organization();
        const key = await h.createKey(org, { name: 'capped', max_usage: CEILING_USD });
        slowBillingMock(mock);
        const results = await Promise.all(
          Array.from({ length: CONCURRENCY }, () =>
            h.gateway('POST', '/v1/chat/completions', { token: key.key, body }),
          ),
        );
        assertRaceOutcome(results, mock);
        const spend = await waitFor(
          async () => {
            const s = await keySpend(h.running.store, key.id);
            return s.reserved === 0 ? s : undefined;
          },
          { what: 'reservations settled' },
        );
        assert.ok(spend.spent <= CEILING_USD * 1_000_000, `spent ${spend.spent}`);
        assert.equal(spend.spent, FITS * PER_REQUEST);
        // The key is spent: one more request is refused too.
        const more = await h.gateway('POST', '/v1/chat/completions', { token: key.key, body });
        assert.equal(more.status, 429);
      });

      it('a reservation that is never settled is released by releaseExpired()', async () => {
        const org = await h.organization();
        const key = await h.createKey(org, { name: 'crashed holder', max_usage: CEILING_USD });
        const db = h.running.store.db;
        const now = Date.now();
        const month = monthOf(now);
        await db
          .insertInto('key_spend')
          .values({ api_key_id: key.id, month, spent_micro_usd: 1_000, reserved_micro_usd: 700_000 + 200_000 })
          .execute();
        await db
          .insertInto('budget_reservations')
          .values([
            { id: randomUUID(), api_key_id: key.id, month, amount_micro_usd: 700_000, expires_at: now - 1_000 },
            { id: randomUUID(), api_key_id: key.id, month, amount_micro_usd: 200_000, expires_at: now + 600_000 },
          ])
          .execute();
        // With 900,000 reserved, a $0.19 request does not fit.
        assert.equal((await h.gateway('POST', '/v1/chat/completions', { token: key.key, body })).status, 429);

        const ledger = new BudgetLedger(h.running.store, pino({ level: 'silent' }));
        assert.equal(await ledger.releaseExpired(), 1);
        assert.deepEqual(await keySpend(h.running.store, key.id), { spent: 1_000, reserved: 200_000 });
        const left = await db
          .selectFrom('budget_reservations')
          .select('amount_micro_usd')
          .where('api_key_id', '=', key.id)
          .execute();
        assert.deepEqual(
          left.map((r) => Number(r.amount_micro_usd)),
          [200_000],
          'the live reservation is kept',
        );
        assert.equal(await ledger.releaseExpired(), 0, 'releasing twice changes nothing');

        mock.reset();
        slowBillingMock(mock);
        assert.equal(
          (await h.gateway('POST', '/v1/chat/completions', { token: key.key, body })).status,
          200,
          'the released budget is usable again',
        );
      });
    });
  }

  describe(
    'two gateway processes sharing PostgreSQL',
    { skip: process.env.GATEWAY_TEST_DATABASE_URL ? false : 'GATEWAY_TEST_DATABASE_URL is not set' },
    () => {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const dirs: string[] = [];
      const children: GatewayChild[] = [];
      let mock: MockUpstream;
      /** The test's own connection to the shared schema: migrates it first, then reads the ledger. */
      let store: Store | undefined;

      before(async () => {
        mock = await startMockOpenAI();
        const configDir = mkdtempSync(join(tmpdir(), 'gateway-race-config-'));
        dirs.push(configDir);
        const configFile = join(configDir, 'gateway-config.json');
        writeFileSync(configFile, JSON.stringify(config(mock)));
        const shared = {
          DATABASE_URL: process.env.GATEWAY_TEST_DATABASE_URL!,
          DATABASE_SCHEMA: schema,
          GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'),
          GATEWAY_CONFIG: configFile,
          MOCK_OPENAI_KEY: 'sk-mock',
        };
        // The schema is created and migrated here first; the two processes then start side by side.
        store = await openStore({ dataDir: configDir, databaseUrl: shared.DATABASE_URL, schema });
        const started = await Promise.allSettled(
          [0, 1].map((i) => {
            const dataDir = mkdtempSync(join(tmpdir(), `gateway-race-${i}-`));
            dirs.push(dataDir);
            return spawnGateway({ ...shared, GATEWAY_DATA_DIR: dataDir });
          }),
        );
        for (const result of started) if (result.status === 'fulfilled') children.push(result.value);
        const failed = started.find((r) => r.status === 'rejected');
        if (failed) throw (failed as PromiseRejectedResult).reason;
      });
      after(async () => {
        await Promise.all(children.map((c) => c.stop()));
        await store?.close();
        await mock?.close();
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        await dropSchema(schema);
      });

      it('at most 5 succeed across both, the rest get 429, spend stays under the ceiling', async () => {
        const [a, b] = children as [GatewayChild, GatewayChild];
        // Organization and console token straight in the store (what `gateway admin bootstrap` does),
        // the key through the first process's console API.
        const slug = `race-${randomBytes(3).toString('hex')}`;
        const { organization } = await ensureOrganization(store!, slug, slug);
        const { secret } = await createConsoleToken(store!, {
          organizationId: organization.id,
          name: 'race',
          permission: 'admin',
        });
        const created = await a.console('POST', `/v1/organizations/${organization.id}/api_keys`, {
          token: secret,
          body: { name: 'capped across processes', max_usage: CEILING_USD },
        });
        assert.equal(created.status, 201, created.text);
        const key = created.json as { id: string; key: string };

        slowBillingMock(mock);
        const results = await Promise.all(
          Array.from({ length: CONCURRENCY }, (_, i) =>
            (i % 2 === 0 ? a : b).gateway('POST', '/v1/chat/completions', { token: key.key, body }),
          ),
        );
        assertRaceOutcome(results, mock);
        assert.ok(
          results.some((r, i) => i % 2 === 1 && r.status === 429),
          "the second process saw the first one's reservations",
        );

        {
          const spend = await waitFor(
            async () => {
              const s = await keySpend(store!, key.id);
              return s.reserved === 0 ? s : undefined;
            },
            { what: 'reservations settled' },
          );
          assert.ok(spend.spent <= CEILING_USD * 1_000_000, `spent ${spend.spent}`);
          assert.equal(spend.spent, FITS * PER_REQUEST);
          const rows = await waitFor(
            async () => {
              const r = await store!.db
                .selectFrom('usage_records')
                .select(['status_code'])
                .where('api_key_id', '=', key.id)
                .execute();
              return r.length >= FITS ? r : undefined;
            },
            { what: 'usage rows' },
          );
          assert.equal(rows.filter((r) => Number(r.status_code) === 200).length, FITS);
        }
      });

      it('without max_tokens on a 128k-output model: capped requests across both never pass the ceiling plus the bound (docs/budgets.md)', async () => {
        const [a, b] = children as [GatewayChild, GatewayChild];
        const slug = `race-big-${randomBytes(3).toString('hex')}`;
        const { organization } = await ensureOrganization(store!, slug, slug);
        const { secret } = await createConsoleToken(store!, {
          organizationId: organization.id,
          name: 'race',
          permission: 'admin',
        });
        const created = await b.console('POST', `/v1/organizations/${organization.id}/api_keys`, {
          token: secret,
          body: { name: 'capped big', max_usage: CEILING_USD },
        });
        assert.equal(created.status, 201, created.text);
        const key = created.json as { id: string; key: string };
        mock.reset();
        // Every answer fills the cap it was sent: the worst case the reservation must cover.
        mock.setScenario((request) => ({
          usage: { inputTokens: BILLED_PROMPT, outputTokens: request.body.max_tokens ?? 128_000 },
          hangBeforeHeadersMs: 50,
        }));
        const bigBody = { model: BIG_MODEL, messages: [{ role: 'user', content: 'spend' }] };
        const results = await Promise.all(
          Array.from({ length: CONCURRENCY }, (_, i) =>
            (i % 2 === 0 ? a : b).gateway('POST', '/v1/chat/completions', { token: key.key, body: bigBody }),
          ),
        );
        const ok = results.filter((r) => r.status === 200).length;
        assert.equal(ok + results.filter((r) => r.status === 429).length, CONCURRENCY);
        assert.ok(ok >= 1, 'the ceiling pays for at least one answer');
        assert.equal(mock.requests.length, ok);
        const spend = await waitFor(
          async () => {
            const s = await keySpend(store!, key.id);
            return s.reserved === 0 ? s : undefined;
          },
          { what: 'reservations settled' },
        );
        const bound = ok * BILLED_PROMPT * BIG_PRICING.input_per_mtok;
        assert.ok(spend.spent <= CEILING_USD * 1_000_000 + bound, `spent ${spend.spent}, ${ok} admitted`);
      });
    },
  );
});
