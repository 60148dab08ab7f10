import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { openStore, type Store } from '../../src/store/database.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';
import type { StoreKind } from './gateway-harness.js';
import { keySpend, waitFor } from './chat-kit.js';

/**
 * Shared by test/faults/ and test/scale/: a data dir (and PostgreSQL schema) prepared from the
 * test process for gateway children, and the ledger invariants every fault must leave intact.
 */
export interface PreparedData {
  kind: StoreKind;
  dataDir: string;
  schema: string | undefined;
  /** Environment for spawnGateway: store, master key, config file. */
  env: Record<string, string> & { GATEWAY_DATA_DIR: string };
  organization: { id: string; token: string };
  /** The test's own connection to the same store (migrated before any child starts). */
  store: Store;
}

export async function prepareData(
  kind: StoreKind,
  config: unknown,
  extraEnv: Record<string, string> = {},
): Promise<PreparedData> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-fault-'));
  const schema = kind === 'postgres' ? `t_fault_${randomBytes(5).toString('hex')}` : undefined;
  const configFile = join(dataDir, 'gateway-config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const env: PreparedData['env'] = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_SECRET_KEY: randomBytes(32).toString('hex'),
    GATEWAY_CONFIG: configFile,
    ...extraEnv,
  };
  if (kind === 'postgres') {
    env.DATABASE_URL = process.env.GATEWAY_TEST_DATABASE_URL!;
    env.DATABASE_SCHEMA = schema!;
  }
  const store = await openStore({ dataDir, databaseUrl: env.DATABASE_URL, schema });
  const slug = `fault-${randomBytes(3).toString('hex')}`;
  const { organization } = await ensureOrganization(store, slug, slug);
  const { secret } = await createConsoleToken(store, {
    organizationId: organization.id,
    name: 'fault',
    permission: 'admin',
  });
  return { kind, dataDir, schema, env, organization: { id: organization.id, token: secret }, store };
}

/** No reservation row and nothing reserved for the key: every admitted request was settled or released. */
export async function assertNoLeakedReservation(store: Store, apiKeyId: string, timeoutMs = 3_000): Promise<void> {
  const settled = await waitFor(
    async () => {
      const rows = await store.db
        .selectFrom('budget_reservations')
        .select('id')
        .where('api_key_id', '=', apiKeyId)
        .execute();
      const spend = await keySpend(store, apiKeyId);
      return rows.length === 0 && spend.reserved === 0 ? true : undefined;
    },
    { timeoutMs, what: `reservations of ${apiKeyId} released` },
  ).catch(() => false);
  if (settled) return;
  const rows = await store.db
    .selectFrom('budget_reservations')
    .selectAll()
    .where('api_key_id', '=', apiKeyId)
    .execute();
  assert.fail(
    `leaked reservation for ${apiKeyId}: key_spend ${JSON.stringify(await keySpend(store, apiKeyId))}, rows ${JSON.stringify(rows)}`,
  );
}

/** The key's monthly spend is exactly the sum of its usage rows' costs (nothing lost or counted twice). */
export async function assertSpendMatchesRows(store: Store, apiKeyId: string): Promise<void> {
  const rows = await store.db
    .selectFrom('usage_records')
    .select('cost_micro_usd')
    .where('api_key_id', '=', apiKeyId)
    .execute();
  const total = rows.reduce((sum, r) => sum + Number(r.cost_micro_usd), 0);
  assert.equal((await keySpend(store, apiKeyId)).spent, total, 'key_spend.spent equals the sum of usage row costs');
}

/** Milliseconds `work` took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/**
 * A TCP proxy in front of PostgreSQL that a test can take down and bring back: `down()` resets
 * every open connection and refuses new ones (the database restarted or the network dropped),
 * `up()` listens again on the same port. The gateway's DATABASE_URL points at it.
 */
export interface DatabaseProxy {
  url: string;
  port: number;
  connections(): number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startDatabaseProxy(targetUrl: string): Promise<DatabaseProxy> {
  const target = new URL(targetUrl);
  const targetPort = Number(target.port || 5432);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    if (server) return;
    server = createServer((client) => {
      const upstream = connect(targetPort, target.hostname);
      sockets.add(client);
      sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server!.address() as AddressInfo).port;
  };
  await listen();
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const down = async () => {
    const closing = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
    server = undefined;
    await closing;
  };
  return {
    url: url.toString(),
    port,
    connections: () => sockets.size / 2,
    down,
    up: listen,
    close: down,
  };
}
