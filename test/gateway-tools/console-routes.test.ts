import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';

for (const store of storeKinds()) {
  describe(`console gateway tool routes (${store})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ store });
    });
    after(async () => h.stop());

    it('lists the catalogue, every tool inactive at first', async () => {
      const org = await h.organization();
      const list = await h.console('GET', `/v1/organizations/${org.id}/gateway_tools`, { token: org.token });
      assert.equal(list.status, 200);
      assert.equal(list.json.object, 'list');
      const ids = list.json.data.map((t: any) => t.id);
      for (const id of ['gateway_current_time', 'gateway_generate_uuid', 'gateway_calculator'])
        assert.ok(ids.includes(id));
      for (const tool of list.json.data) {
        assert.equal(tool.object, 'gateway_tool');
        assert.equal(tool.active, false);
        assert.equal(tool.hydrate, false);
        assert.equal(tool.active_key_ids, null);
        assert.deepEqual(tool.hydrate_key_ids, []);
        assert.equal(tool.parameters.type, 'object');
      }
    });

    it('activates, restricts to keys and hydrates; omitted members keep their value', async () => {
      const org = await h.organization();
      const key = await h.createKey(org);
      const path = `/v1/organizations/${org.id}/gateway_tools/gateway_calculator`;
      const activated = await h.console('POST', path, { token: org.token, body: { active: true } });
      assert.equal(activated.status, 200);
      assert.equal(activated.json.active, true);
      assert.ok(activated.json.updated_at);
      const hydrated = await h.console('POST', path, {
        token: org.token,
        body: { hydrate_key_ids: [key.id], active_key_ids: [key.id] },
      });
      assert.equal(hydrated.json.active, true);
      assert.deepEqual(hydrated.json.hydrate_key_ids, [key.id]);
      assert.deepEqual(hydrated.json.active_key_ids, [key.id]);
      const reopened = await h.console('POST', path, {
        token: org.token,
        body: { active_key_ids: null, hydrate: true },
      });
      assert.equal(reopened.json.active_key_ids, null);
      assert.equal(reopened.json.hydrate, true);
      const one = await h.console('GET', path, { token: org.token });
      assert.deepEqual(one.json, reopened.json);
    });

    it('an unknown tool id is 404, for read and write', async () => {
      const org = await h.organization();
      for (const method of ['GET', 'POST']) {
        const result = await h.console(method, `/v1/organizations/${org.id}/gateway_tools/gateway_nope`, {
          token: org.token,
          ...(method === 'POST' ? { body: { active: true } } : {}),
        });
        assert.equal(result.status, 404);
        assert.equal(result.json.error, 'Not Found');
        assert.match(result.json.message, /gateway_nope/);
      }
    });

    it('key ids must be keys of this organization', async () => {
      const org = await h.organization();
      const other = await h.organization();
      const foreignKey = await h.createKey(other);
      for (const field of ['active_key_ids', 'hydrate_key_ids']) {
        const result = await h.console('POST', `/v1/organizations/${org.id}/gateway_tools/gateway_calculator`, {
          token: org.token,
          body: { [field]: [foreignKey.id] },
        });
        assert.equal(result.status, 400);
        assert.equal(result.json.error, 'Bad Request');
        assert.match(result.json.message, new RegExp(`${field}.*${foreignKey.id}`));
      }
    });

    it('refuses unknown members and wrong types', async () => {
      const org = await h.organization();
      const path = `/v1/organizations/${org.id}/gateway_tools/gateway_calculator`;
      for (const body of [
        { enabled: true },
        { active: 'yes' },
        { hydrate_key_ids: 'k' },
        { hydrate_key_ids: ['a', 'a'] },
      ]) {
        const result = await h.console('POST', path, { token: org.token, body });
        assert.equal(result.status, 400, JSON.stringify(body));
        assert.equal(result.json.error, 'Bad Request');
      }
    });

    it('another organization gets 403 and learns nothing; a read token cannot write', async () => {
      const org = await h.organization();
      const other = await h.organization();
      const read = await h.organization(undefined, 'read');
      for (const [method, path] of [
        ['GET', `/v1/organizations/${org.id}/gateway_tools`],
        ['POST', `/v1/organizations/${org.id}/gateway_tools/gateway_calculator`],
      ] as const) {
        const result = await h.console(method, path, {
          token: other.token,
          ...(method === 'POST' ? { body: { active: true } } : {}),
        });
        assert.equal(result.status, 403);
        assert.equal(result.json.error, 'Forbidden');
      }
      const list = await h.console('GET', `/v1/organizations/${org.id}/gateway_tools`, { token: org.token });
      assert.ok(list.json.data.every((t: any) => t.active === false));
      assert.equal(
        (await h.console('GET', `/v1/organizations/${read.id}/gateway_tools`, { token: read.token })).status,
        200,
      );
      assert.equal(
        (
          await h.console('POST', `/v1/organizations/${read.id}/gateway_tools/gateway_calculator`, {
            token: read.token,
            body: { active: true },
          })
        ).status,
        403,
      );
      assert.equal((await h.console('GET', `/v1/organizations/${org.id}/gateway_tools`)).status, 401);
    });
  });
}
