import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/database.js';
import { dropSchema } from './gateway-harness.js';
import { suiteFixture } from './suite-fixture.js';

/**
 * A store of its own for the suite this is called in: a fresh SQLite file, or a fresh schema of
 * GATEWAY_TEST_DATABASE_URL, migrated; closed and removed after the suite's last test.
 */
export function freshStore(kind: 'sqlite' | 'postgres', label: string): { store: Store } {
  return suiteFixture(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), `gateway-${label}-`));
    const schema = kind === 'postgres' ? `t_${label}_${randomBytes(5).toString('hex')}` : undefined;
    const store = await openStore({
      dataDir,
      databaseUrl: kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined,
      schema,
    });
    return {
      store,
      async stop() {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
        if (schema) await dropSchema(schema);
      },
    };
  });
}
