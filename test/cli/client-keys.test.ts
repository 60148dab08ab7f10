import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSettings } from '../../src/config/settings.js';
import { LAUNCH_KEYS_FILE, launchKey } from '../../src/cli/client-keys.js';
import { openStore } from '../../src/store/database.js';
import { ApiKeyRepository } from '../../src/store/api-keys.js';
import { loadMasterKey } from '../../src/secrets/master-key.js';
import { Keyring } from '../../src/secrets/keyring.js';
import { dropSchema } from '../support/gateway-harness.js';

/**
 * The key `gateway launch` reuses: recorded by id in the data dir, revealed from the store
 * (SQLite, and PostgreSQL when GATEWAY_TEST_DATABASE_URL is set), replaced once it cannot be used.
 */
for (const kind of ['sqlite', 'postgres'] as const) {
  const skip =
    kind === 'postgres' && !process.env.GATEWAY_TEST_DATABASE_URL ? 'GATEWAY_TEST_DATABASE_URL unset' : false;
  describe(`launch keys on ${kind}`, { skip }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-launch-keys-'));
    const schema = kind === 'postgres' ? `t_launch_keys_${randomBytes(5).toString('hex')}` : undefined;
    const settings = readSettings({
      GATEWAY_DATA_DIR: dataDir,
      ...(kind === 'postgres' ? { DATABASE_URL: process.env.GATEWAY_TEST_DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
    });
    after(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
    });

    async function withKeys<T>(use: (keys: ApiKeyRepository) => Promise<T>): Promise<T> {
      const store = await openStore({ dataDir, databaseUrl: settings.databaseUrl, schema: settings.databaseSchema });
      try {
        return await use(new ApiKeyRepository(store, new Keyring([loadMasterKey(dataDir, undefined)])));
      } finally {
        await store.close();
      }
    }

    it('reuses the recorded key per organization and agent, and replaces one disabled, expired or deleted', async () => {
      const first = await launchKey(settings, { client: 'claude-code', org: 'acme', compression: true });
      assert.equal(first.reused, false);
      const again = await launchKey(settings, { client: 'claude-code', org: 'acme', compression: true });
      assert.deepEqual(again, { ...first, reused: true });
      const otherAgent = await launchKey(settings, { client: 'codex', org: 'acme', compression: true });
      const otherOrg = await launchKey(settings, { client: 'claude-code', org: 'beta', compression: true });
      assert.equal(new Set([first.id, otherAgent.id, otherOrg.id]).size, 3);
      assert.deepEqual(JSON.parse(readFileSync(join(dataDir, LAUNCH_KEYS_FILE), 'utf8')), {
        'acme/claude-code': first.id,
        'acme/codex': otherAgent.id,
        'beta/claude-code': otherOrg.id,
      });

      let current = first;
      for (const patch of [{ active: false }, { expiresAt: Date.now() - 1 }, 'delete'] as const) {
        await withKeys<unknown>((keys) =>
          patch === 'delete'
            ? keys.delete(current.organizationId, current.id)
            : keys.update(current.organizationId, current.id, patch),
        );
        const next = await launchKey(settings, { client: 'claude-code', org: 'acme', compression: true });
        assert.equal(next.reused, false, JSON.stringify(patch));
        assert.notEqual(next.id, current.id);
        current = next;
      }
      const stored = await withKeys((keys) => keys.get(current.organizationId, current.id));
      assert.equal(stored?.codingAssistant, 'claude_code');
      assert.match(stored!.name, /^claude-code \(gateway launch, \d{4}-\d{2}-\d{2}\)$/);
    });
  });
}
