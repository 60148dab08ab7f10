import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/database.js';
import { ensureOrganization, findOrganizationBySlug } from '../../src/store/organizations.js';
import { dropSchema, storeKinds, type StoreKind } from '../support/gateway-harness.js';
import { runCli } from '../cli/cli-process.js';

/** The storage layer on both dialects: migrations, concurrent bootstrap, number round-trips. */
interface Location {
  dataDir: string;
  schema: string | undefined;
  env: Record<string, string>;
}

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function freshLocation(kind: StoreKind): Location {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-store-'));
  const schema = kind === 'postgres' ? `t_store_${randomBytes(5).toString('hex')}` : undefined;
  cleanups.push(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema);
  });
  const env: Record<string, string> = { GATEWAY_DATA_DIR: dataDir };
  if (schema) Object.assign(env, { DATABASE_URL: process.env.GATEWAY_TEST_DATABASE_URL!, DATABASE_SCHEMA: schema });
  return { dataDir, schema, env };
}

function open(kind: StoreKind, location: Location): Promise<Store> {
  return openStore({
    dataDir: location.dataDir,
    databaseUrl: kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined,
    schema: location.schema,
  });
}

async function migrationNames(store: Store): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(store.db);
  return rows.rows.map((r) => r.name);
}

for (const kind of storeKinds()) {
  describe(`store (${kind})`, () => {
    it('opening the same store twice in a row runs the migrations once and keeps the data', async () => {
      const location = freshLocation(kind);
      const first = await open(kind, location);
      const { organization } = await ensureOrganization(first, 'keep-me', 'Keep me');
      const names = await migrationNames(first);
      assert.ok(names.length >= 1);
      await first.close();
      const second = await open(kind, location);
      try {
        assert.deepEqual(await migrationNames(second), names);
        assert.equal((await findOrganizationBySlug(second, 'keep-me'))?.id, organization.id);
      } finally {
        await second.close();
      }
    });

    // One process holds one SQLite connection; concurrent SQLite opens are covered by the
    // bootstrap processes below (better-sqlite3 waits synchronously, so two connections of one
    // process would wait on each other).
    it(
      'opening the same fresh store from several connections at once migrates it exactly once',
      { skip: kind === 'sqlite' && 'one connection per process on SQLite' },
      async () => {
        const location = freshLocation(kind);
        const stores = await Promise.all([open(kind, location), open(kind, location), open(kind, location)]);
        try {
          const names = await Promise.all(stores.map(migrationNames));
          for (const list of names) assert.deepEqual(list, names[0]);
          assert.equal(new Set(names[0]).size, names[0]!.length);
        } finally {
          await Promise.all(stores.map((s) => s.close()));
        }
      },
    );

    it(
      'a fresh schema migrates while another schema of the same database holds a migrated store',
      { skip: kind === 'sqlite' && 'PostgreSQL schemas only' },
      async () => {
        const existing = await open(kind, freshLocation(kind));
        try {
          const fresh = await open(kind, freshLocation(kind));
          try {
            assert.ok((await migrationNames(fresh)).length >= 1);
            await ensureOrganization(fresh, 'in-fresh', 'x');
            assert.equal(await findOrganizationBySlug(existing, 'in-fresh'), undefined, 'schemas are separate');
          } finally {
            await fresh.close();
          }
        } finally {
          await existing.close();
        }
      },
    );

    it('concurrent ensureOrganization calls for one slug from two connections create one organization', async () => {
      const location = freshLocation(kind);
      const [a, b] = [await open(kind, location), await open(kind, location)];
      try {
        for (let round = 0; round < 5; round++) {
          const slug = `race-${round}`;
          const results = await Promise.all(
            Array.from({ length: 8 }, (_, i) => ensureOrganization(i % 2 ? a : b, slug, slug)),
          );
          assert.equal(new Set(results.map((r) => r.organization.id)).size, 1, `round ${round}`);
          assert.equal(results.filter((r) => r.created).length, 1, `round ${round}: exactly one caller created it`);
          const count = await a.db
            .selectFrom('organizations')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('slug', '=', slug)
            .executeTakeFirstOrThrow();
          assert.equal(Number(count.n), 1);
        }
      } finally {
        await a.close();
        await b.close();
      }
    });

    it(
      'two bootstrap processes for the same organization at once, on a fresh store, migrate it once and agree on one organization',
      { timeout: 60_000 },
      async () => {
        const location = freshLocation(kind);
        const runs = await Promise.all(
          [0, 1].map(() => runCli('tsx', ['admin', 'bootstrap', '--org', 'raced'], location.env)),
        );
        for (const run of runs) assert.equal(run.status, 0, run.stderr);
        const outputs = runs.map(
          (run) => JSON.parse(run.stdout.trim()) as { organization_id: string; console_token: string },
        );
        assert.equal(new Set(outputs.map((o) => o.organization_id)).size, 1);
        assert.equal(new Set(outputs.map((o) => o.console_token)).size, 2);
        const store = await open(kind, location);
        try {
          const orgs = await store.db.selectFrom('organizations').selectAll().execute();
          assert.equal(orgs.length, 1);
          const tokens = await store.db.selectFrom('console_tokens').selectAll().execute();
          assert.equal(tokens.length, 2);
        } finally {
          await store.close();
        }
      },
    );

    it('micro-USD amounts and millisecond times round-trip as exact numbers, sums too', async () => {
      const location = freshLocation(kind);
      const store = await open(kind, location);
      try {
        const { organization } = await ensureOrganization(store, 'numbers', 'Numbers');
        const now = Date.now();
        const big = 9_007_199_254_740_991; // 2^53 - 1: the largest exact integer
        assert.equal(typeof organization.created_at, 'number');
        const readBack = await findOrganizationBySlug(store, 'numbers');
        assert.equal(readBack?.created_at, organization.created_at);

        const base = {
          request_id: 'req_1',
          organization_id: organization.id,
          api_key_id: 'k1',
          model: 'local/echo',
          provider: 'local',
          upstream_model: 'echo',
          endpoint: '/v1/chat/completions',
          input_tokens: 3_000_000_000,
          cached_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: 7,
          reasoning_tokens: 0,
          uncompressed_input_tokens: null,
          tags: '[]',
          status_code: 200,
          error_code: null,
          latency_ms: 1234,
          stream: 0,
        };
        await store.db
          .insertInto('usage_records')
          .values([
            { ...base, id: randomUUID(), created_at: now, cost_micro_usd: 1_234_567_890_123 },
            { ...base, id: randomUUID(), created_at: now + 1, cost_micro_usd: 1 },
          ])
          .execute();
        const rows = await store.db.selectFrom('usage_records').selectAll().orderBy('created_at').execute();
        assert.deepEqual(
          rows.map((r) => [r.created_at, r.cost_micro_usd, r.input_tokens, r.latency_ms]),
          [
            [now, 1_234_567_890_123, 3_000_000_000, 1234],
            [now + 1, 1, 3_000_000_000, 1234],
          ],
        );
        for (const row of rows)
          for (const value of [row.created_at, row.cost_micro_usd, row.input_tokens])
            assert.equal(typeof value, 'number');

        const sum = await store.db
          .selectFrom('usage_records')
          .select((eb) => eb.fn.sum<number>('cost_micro_usd').as('total'))
          .executeTakeFirstOrThrow();
        assert.equal(typeof sum.total, 'number');
        assert.equal(sum.total, 1_234_567_890_124);

        await store.db
          .insertInto('key_spend')
          .values({ api_key_id: 'k1', month: '2026-01', spent_micro_usd: big, reserved_micro_usd: 0 })
          .execute();
        const spend = await store.db.selectFrom('key_spend').selectAll().executeTakeFirstOrThrow();
        assert.equal(spend.spent_micro_usd, big);
        assert.equal(typeof spend.reserved_micro_usd, 'number');
      } finally {
        await store.close();
      }
    });
  });
}
