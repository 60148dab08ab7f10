import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { steadyLoad } from '../support/steady-load.js';
import { runCli } from './cli-process.js';
import { Keyring, masterKeyId } from '../../src/secrets/keyring.js';
import { sealContext } from '../../src/store/api-keys.js';

const PRICING = { input_per_mtok: 1, output_per_mtok: 1 };

for (const kind of storeKinds()) {
  describe(`master-key rotation while the gateway serves (${kind})`, () => {
    let dir: string;
    let mock: MockUpstream;
    let h: Harness;
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const keyringFile = () => join(dir, 'keyring');

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'rotate-'));
      writeFileSync(keyringFile(), `${oldKey.toString('hex')}\n`, { mode: 0o600 });
      mock = await startMockOpenAI();
      h = await startHarness({
        store: kind,
        config: {
          providers: [{ id: 'mock', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_ROTATE_KEY' }],
          models: [{ id: 'mock/m1', providers: [{ provider: 'mock', model: 'm1' }], pricing: PRICING }],
        },
        env: { GATEWAY_SECRET_KEY_FILE: keyringFile(), GATEWAY_RELOAD_POLL_MS: '100', MOCK_ROTATE_KEY: 'sk-mock' },
      });
    });

    after(async () => {
      await h?.stop();
      await mock?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('re-seals every gateway key with the new key; no request fails and every key authenticates and reveals throughout', async (t) => {
      const org = await h.organization();
      const keys: Array<{ id: string; key: string }> = [];
      for (let i = 0; i < 12; i++) keys.push(await h.createKey(org, { name: `before ${i}` }));
      const reload = async () => {
        const answer = await h.console('POST', '/v1/admin/reload', { token: org.token });
        assert.equal(answer.status, 200, answer.text);
        return answer.json.keyring.key_ids as string[];
      };

      const load = steadyLoad(4, async (worker, call) => {
        const { id, key } = keys[(worker * 7 + call) % keys.length]!;
        if (worker === 3 && call % 5 === 0) {
          // New keys keep being made during the rotation: whichever key seals them, they must survive it.
          keys.push(await h.createKey(org, { name: `during ${call}` }));
          return;
        }
        if (worker % 2 === 0) {
          const chat = await h.gateway('POST', '/v1/chat/completions', {
            token: key,
            body: { model: 'mock/m1', messages: [{ role: 'user', content: 'hi' }] },
          });
          if (chat.status !== 200) throw new Error(`chat ${chat.status}: ${chat.text.slice(0, 200)}`);
        } else {
          const revealed = await h.console('GET', `/v1/organizations/${org.id}/api_keys/${id}/reveal`, {
            token: org.token,
          });
          if (revealed.status !== 200 || revealed.json.key !== key)
            throw new Error(`reveal ${revealed.status}: ${revealed.text.slice(0, 200)}`);
        }
      });
      const env = { ...h.env };
      delete (env as Record<string, string>).GATEWAY_CONFIG;
      try {
        await load.more(20);
        // 1. Every instance accepts the new key before any seals with it.
        writeFileSync(keyringFile(), `${oldKey.toString('hex')}\n${newKey.toString('hex')}\n`);
        assert.deepEqual(await reload(), [masterKeyId(oldKey), masterKeyId(newKey)]);
        await load.more(20);
        // 2. The new key seals.
        writeFileSync(keyringFile(), `${newKey.toString('hex')}\n${oldKey.toString('hex')}\n`);
        assert.deepEqual(await reload(), [masterKeyId(newKey), masterKeyId(oldKey)]);
        // 3. Everything sealed by the old key is re-sealed, in small batches, while clients call.
        const callsBefore = load.completed();
        const rotated = await runCli('tsx', ['admin', 'rotate-master-key', '--batch-size', '3'], env, 60_000);
        assert.equal(rotated.status, 0, rotated.stderr);
        const report = JSON.parse(rotated.stdout.trim());
        assert.equal(report.current_key_id, masterKeyId(newKey));
        assert.ok(report.resealed >= 12, rotated.stdout);
        assert.equal(report.unreadable, 0);
        assert.equal(report.needs_resealing, 0);
        t.diagnostic(
          `re-sealed ${report.resealed} keys in batches of 3 while ${load.completed() - callsBefore} calls completed`,
        );
        const check = await runCli('tsx', ['admin', 'rotate-master-key', '--check'], env, 60_000);
        assert.equal(check.status, 0, check.stdout + check.stderr);
        assert.deepEqual(Object.keys(JSON.parse(check.stdout.trim()).sealed_by_key_id), [masterKeyId(newKey)]);
        // 4. The old key goes.
        writeFileSync(keyringFile(), `${newKey.toString('hex')}\n`);
        assert.deepEqual(await reload(), [masterKeyId(newKey)]);
        await load.more(40);
      } finally {
        await load.stop();
      }
      t.diagnostic(
        `${load.completed()} calls (chats, reveals, key creations) during the rotation, ${load.failures.length} failed`,
      );
      assert.deepEqual(load.failures, []);
      assert.ok(keys.length > 12, 'keys were created during the rotation');
      for (const { id, key } of keys) {
        const chat = await h.gateway('GET', '/v1/models', { token: key });
        assert.equal(chat.status, 200);
        const revealed = await h.console('GET', `/v1/organizations/${org.id}/api_keys/${id}/reveal`, {
          token: org.token,
        });
        assert.equal(revealed.json.key, key);
      }
      // Every stored value opens with the new key alone (the old one can be destroyed).
      const sealed = await h.running.store.db.selectFrom('api_keys').select(['id', 'key_ciphertext']).execute();
      const newOnly = new Keyring([newKey]);
      for (const row of sealed)
        assert.equal(newOnly.sealerOf(row.key_ciphertext!, sealContext(row.id)), masterKeyId(newKey));
    });

    it('explains itself with --help and refuses a bad batch size', async () => {
      const help = await runCli('tsx', ['admin', 'rotate-master-key', '--help'], {});
      assert.equal(help.status, 0);
      assert.match(help.stdout, /usage: gateway admin rotate-master-key/);
      assert.match(help.stdout, /idempotent/);
      const bad = await runCli('tsx', ['admin', 'rotate-master-key', '--batch-size', '0'], { ...h.env });
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr, /--batch-size must be an integer/);
    });
  });
}
