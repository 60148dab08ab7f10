import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';

/** Gateway authentication (spec 5, issue 2 item 8) on both stores. */
const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Polls `probe` until it returns true; resolves with the time it took, or fails after `limitMs`. */
async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > limitMs) assert.fail(`not true within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function assertGatewayEnvelope(json: any, code: string, type: string): void {
  assert.deepEqual(Object.keys(json), ['error']);
  assert.deepEqual(Object.keys(json.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(typeof json.error.message, 'string');
  assert.ok(json.error.message.length > 0);
  assert.equal(json.error.type, type);
  assert.equal(json.error.code, code);
  assert.equal(json.error.param, null);
}

for (const store of storeKinds()) {
  describe(`gateway authentication (${store})`, () => {
    let h: Harness;
    let org: { id: string; token: string; slug: string };
    before(async () => {
      h = await startHarness({ store, env: { GATEWAY_KEY_CACHE_TTL_MS: '100' } });
      org = await h.organization();
    });
    after(async () => h.stop());

    it('a request without a key gets 401 unauthorized in the gateway envelope', async () => {
      const result = await h.gateway('GET', '/v1/models');
      assert.equal(result.status, 401);
      assert.match(String(result.headers['content-type']), /^application\/json/);
      assertGatewayEnvelope(result.json, 'unauthorized', 'authentication_error');
    });

    it('an unknown key, a malformed header and an empty Bearer get 401 unauthorized', async () => {
      for (const authorization of [
        'Bearer gw-' + 'A'.repeat(43),
        'Bearer not-a-key',
        'Bearer ',
        'Token abc',
        'Basic !!!',
        basic(''),
      ]) {
        const result = await h.gateway('GET', '/v1/models', { headers: { authorization } });
        assert.equal(result.status, 401, authorization);
        assertGatewayEnvelope(result.json, 'unauthorized', 'authentication_error');
      }
    });

    it('a console token is refused on the gateway with 401', async () => {
      const result = await h.gateway('GET', '/v1/models', { token: org.token });
      assert.equal(result.status, 401);
      assertGatewayEnvelope(result.json, 'unauthorized', 'authentication_error');
    });

    it('a gateway key is refused on the console with 401 {error, message}', async () => {
      const key = await h.createKey(org);
      const result = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, { token: key.key });
      assert.equal(result.status, 401);
      assert.equal(result.json.error, 'Unauthorized');
      assert.equal(typeof result.json.message, 'string');
      assert.ok(!result.text.includes(key.key));
    });

    it('accepts Bearer with any case of the scheme word, and Basic with the key as user name and an empty password', async () => {
      const key = await h.createKey(org);
      for (const authorization of [
        `Bearer ${key.key}`,
        `bearer ${key.key}`,
        `BEARER ${key.key}`,
        basic(key.key),
        `Basic ${Buffer.from(key.key).toString('base64')}`,
      ]) {
        const result = await h.gateway('GET', '/v1/models', { headers: { authorization } });
        assert.equal(result.status, 200, authorization);
      }
    });

    it('Basic ignores the password (the key alone is the credential) and refuses the key sent as the password', async () => {
      const key = await h.createKey(org);
      const withPassword = await h.gateway('GET', '/v1/models', {
        headers: { authorization: basic(key.key, 'anything') },
      });
      assert.equal(withPassword.status, 200);
      const asPassword = await h.gateway('GET', '/v1/models', { headers: { authorization: basic('', key.key) } });
      assert.equal(asPassword.status, 401);
    });

    it('does not accept x-api-key on /v1/models', async () => {
      const key = await h.createKey(org);
      const result = await h.gateway('GET', '/v1/models', { headers: { 'x-api-key': key.key } });
      assert.equal(result.status, 401);
      assertGatewayEnvelope(result.json, 'unauthorized', 'authentication_error');
    });

    it('an inactive key gets 403 forbidden at once, and works again once reactivated', async () => {
      const key = await h.createKey(org);
      assert.equal((await h.gateway('GET', '/v1/models', { token: key.key })).status, 200);
      await h.console('POST', `/v1/organizations/${org.id}/api_keys/${key.id}`, {
        token: org.token,
        body: { active: false },
      });
      const refused = await h.gateway('GET', '/v1/models', { token: key.key });
      assert.equal(refused.status, 403);
      assertGatewayEnvelope(refused.json, 'forbidden', 'permission_error');
      await h.console('POST', `/v1/organizations/${org.id}/api_keys/${key.id}`, {
        token: org.token,
        body: { active: true },
      });
      assert.equal((await h.gateway('GET', '/v1/models', { token: key.key })).status, 200);
    });

    it('an expired key gets 403 forbidden', async () => {
      const key = await h.createKey(org, { name: 'expiring', expires_in_days: 1 });
      assert.equal((await h.gateway('GET', '/v1/models', { token: key.key })).status, 200);
      await h.running.store.db
        .updateTable('api_keys')
        .set({ expires_at: Date.now() - 1000 })
        .where('id', '=', key.id)
        .execute();
      await within(2000, async () => (await h.gateway('GET', '/v1/models', { token: key.key })).status === 403);
      const refused = await h.gateway('GET', '/v1/models', { token: key.key });
      assertGatewayEnvelope(refused.json, 'forbidden', 'permission_error');
      assert.match(refused.json.error.message, /expired/);
    });

    it('a deleted key gets 401 unauthorized at once', async () => {
      const key = await h.createKey(org);
      assert.equal((await h.gateway('GET', '/v1/models', { token: key.key })).status, 200);
      await h.console('DELETE', `/v1/organizations/${org.id}/api_keys/${key.id}`, { token: org.token });
      const refused = await h.gateway('GET', '/v1/models', { token: key.key });
      assert.equal(refused.status, 401);
      assertGatewayEnvelope(refused.json, 'unauthorized', 'authentication_error');
    });

    it("deactivating a key of organization A leaves organization B's keys working", async () => {
      const other = await h.organization();
      const mine = await h.createKey(org);
      const theirs = await h.createKey(other);
      await h.console('POST', `/v1/organizations/${org.id}/api_keys/${mine.id}`, {
        token: org.token,
        body: { active: false },
      });
      assert.equal((await h.gateway('GET', '/v1/models', { token: theirs.key })).status, 200);
    });

    it('records last_used_at for a key that was used, without waiting for the flush', async () => {
      const key = await h.createKey(org);
      const before = Date.now();
      assert.equal((await h.gateway('GET', '/v1/models', { token: key.key })).status, 200);
      const shown = await h.console('GET', `/v1/organizations/${org.id}/api_keys/${key.id}`, { token: org.token });
      assert.ok(shown.json.last_used_at, 'last_used_at not set');
      assert.ok(Date.parse(shown.json.last_used_at) >= before - 5);
    });

    it('an expired console token gets 401 on the console', async () => {
      const { secret } = await createConsoleToken(h.running.store, {
        organizationId: org.id,
        name: 'old',
        permission: 'admin',
        expiresAt: Date.now() - 1,
      });
      const result = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, { token: secret });
      assert.equal(result.status, 401);
      assert.equal(result.json.error, 'Unauthorized');
    });
  });

  describe(`gateway authentication across two instances sharing one ${store} store`, () => {
    let a: Harness;
    let b: Harness;
    before(async () => {
      a = await startHarness({ store });
      // Same data dir (SQLite file and master key) and, on PostgreSQL, the same schema.
      b = await startHarness({ store, dataDir: a.dataDir, ...(a.schema ? { schema: a.schema } : {}) });
    });
    after(async () => {
      await b.stop();
      await a.stop();
    });

    it('a key created on A works on B and B reveals the same secret', async () => {
      const org = await a.organization();
      const key = await a.createKey(org);
      assert.equal((await b.gateway('GET', '/v1/models', { token: key.key })).status, 200);
      const revealed = await b.console('GET', `/v1/organizations/${org.id}/api_keys/${key.id}/reveal`, {
        token: org.token,
      });
      assert.equal(revealed.json.key, key.key);
    });

    it('a key deactivated on A is refused by B within 2 s', async () => {
      const org = await a.organization();
      const key = await a.createKey(org);
      assert.equal((await b.gateway('GET', '/v1/models', { token: key.key })).status, 200); // now cached on B
      await a.console('POST', `/v1/organizations/${org.id}/api_keys/${key.id}`, {
        token: org.token,
        body: { active: false },
      });
      assert.equal((await a.gateway('GET', '/v1/models', { token: key.key })).status, 403, 'A itself refuses at once');
      const elapsed = await within(
        2000,
        async () => (await b.gateway('GET', '/v1/models', { token: key.key })).status === 403,
      );
      assert.ok(elapsed < 2000, `B took ${elapsed} ms`);
    });

    it('a key deleted on A is refused by B within 2 s', async () => {
      const org = await a.organization();
      const key = await a.createKey(org);
      assert.equal((await b.gateway('GET', '/v1/models', { token: key.key })).status, 200);
      await a.console('DELETE', `/v1/organizations/${org.id}/api_keys/${key.id}`, { token: org.token });
      const elapsed = await within(
        2000,
        async () => (await b.gateway('GET', '/v1/models', { token: key.key })).status === 401,
      );
      assert.ok(elapsed < 2000, `B took ${elapsed} ms`);
    });
  });
}
