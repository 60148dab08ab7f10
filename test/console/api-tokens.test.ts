import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { digestSecret } from '../../src/secrets/secret-codec.js';

/** /v1/api_tokens: console tokens shown once, stored as digests, admin-managed, org-scoped. */
for (const store of storeKinds()) {
  describe(`console api tokens (${store})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ store });
    });
    after(async () => h.stop());

    it('creates a token shown once, stored only as a digest, that works until deleted', async () => {
      const org = await h.organization();
      const created = await h.console('POST', '/v1/api_tokens', {
        token: org.token,
        body: { name: 'ci reader', permission: 'read', expires_in_days: 30 },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.object, 'api_token');
      assert.equal(created.json.organization_id, org.id);
      assert.equal(created.json.permission, 'read');
      assert.match(created.json.token, /^gwc_[A-Za-z0-9_-]{43}$/);
      // Expiry is computed just before the row's creation time: equal to the millisecond, or 1–2 ms apart.
      assert.ok(
        Math.abs(Date.parse(created.json.expires_at) - Date.parse(created.json.created_at) - 30 * 86_400_000) < 50,
      );
      const row = await h.running.store.db
        .selectFrom('console_tokens')
        .selectAll()
        .where('id', '=', created.json.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.token_digest, digestSecret(created.json.token));
      assert.ok(!JSON.stringify(row).includes(created.json.token));
      const got = await h.console('GET', `/v1/api_tokens/${created.json.id}`, { token: org.token });
      assert.equal(got.json.token, undefined);
      assert.ok(!got.text.includes(row.token_digest));
      const list = await h.console('GET', '/v1/api_tokens', { token: org.token });
      assert.equal(list.json.object, 'list');
      assert.deepEqual(list.json.data.map((t: { permission: string }) => t.permission).sort(), ['admin', 'read']);
      for (const t of list.json.data)
        assert.deepEqual(Object.keys(t).sort(), [
          'created_at',
          'expires_at',
          'id',
          'last_used_at',
          'name',
          'object',
          'organization_id',
          'permission',
        ]);
      // The new read token reads, and is refused on writes.
      assert.equal((await h.console('GET', '/v1/projects', { token: created.json.token })).status, 200);
      assert.equal(
        (await h.console('POST', '/v1/projects', { token: created.json.token, body: { slug: 'x', name: 'x' } })).status,
        403,
      );
      const deleted = await h.console('DELETE', `/v1/api_tokens/${created.json.id}`, { token: org.token });
      assert.deepEqual(deleted.json, { object: 'api_token', id: created.json.id, deleted: true });
      assert.equal((await h.console('GET', '/v1/projects', { token: created.json.token })).status, 401);
      assert.equal((await h.console('GET', `/v1/api_tokens/${created.json.id}`, { token: org.token })).status, 404);
    });

    it('a write token can write but not manage tokens; admin permission cannot be requested', async () => {
      const org = await h.organization();
      const writer = (
        await h.console('POST', '/v1/api_tokens', { token: org.token, body: { name: 'w', permission: 'write' } })
      ).json;
      assert.equal(
        (await h.console('POST', '/v1/projects', { token: writer.token, body: { slug: 'w', name: 'w' } })).status,
        201,
      );
      for (const [method, path, body] of [
        ['POST', '/v1/api_tokens', { name: 'x', permission: 'write' }],
        ['GET', '/v1/api_tokens'],
        ['GET', `/v1/api_tokens/${writer.id}`],
        ['DELETE', `/v1/api_tokens/${writer.id}`],
      ] as const) {
        const result = await h.console(method, path, { token: writer.token, ...(body ? { body } : {}) });
        assert.equal(result.status, 403, `${method} ${path}`);
      }
      const admin = await h.console('POST', '/v1/api_tokens', {
        token: org.token,
        body: { name: 'x', permission: 'admin' },
      });
      assert.equal(admin.status, 400);
      assert.equal(
        (
          await h.console('POST', '/v1/api_tokens', {
            token: org.token,
            body: { name: 'x', permission: 'read', organization_id: 'y' },
          })
        ).status,
        400,
      );
    });

    it('an expired token gets 401', async () => {
      const org = await h.organization();
      const created = (
        await h.console('POST', '/v1/api_tokens', {
          token: org.token,
          body: { name: 'soon', permission: 'read', expires_in_days: 1 },
        })
      ).json;
      await h.running.store.db
        .updateTable('console_tokens')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', created.id)
        .execute();
      assert.equal((await h.console('GET', '/v1/projects', { token: created.token })).status, 401);
    });
  });
}
