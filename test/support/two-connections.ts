import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/database.js';
import { dropSchema } from './gateway-harness.js';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * PostgreSQL: two independent connection pools to one schema, what two gateway processes have.
 * SQLite: one connection (better-sqlite3 is synchronous, so a second connection in the same
 * process would block the event loop waiting for the first one's lock), two ledgers on it.
 */
export async function twoConnections(kind: 'sqlite' | 'postgres'): Promise<[Store, Store]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-allowance-'));
  const schema = kind === 'postgres' ? `t_allow_${randomBytes(5).toString('hex')}` : undefined;
  const databaseUrl = kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined;
  const first = await openStore({ dataDir, databaseUrl, schema });
  const second = kind === 'postgres' ? await openStore({ dataDir, databaseUrl, schema }) : first;
  cleanups.push(async () => {
    await first.close();
    if (second !== first) await second.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema);
  });
  return [first, second];
}
