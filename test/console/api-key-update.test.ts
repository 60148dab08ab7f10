import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';

const DAY = 24 * 3_600_000;

/** The limits the web console edits on an existing key: expiry, debug mode, type and assistant. */
describe('console API key update: expiry, debug mode, type', () => {
  let h: Harness;
  let org: { id: string; token: string };
  before(async () => {
    h = await startHarness();
    org = await h.organization();
  });
  after(() => h.stop());

  const update = (id: string, body: unknown) =>
    h.console('POST', `/v1/organizations/${org.id}/api_keys/${id}`, { token: org.token, body });
  const chat = (key: string) =>
    h.gateway('POST', '/v1/chat/completions', {
      token: key,
      body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hi' }] },
    });

  it('sets, moves and clears the expiry; an expired key is refused at once', async () => {
    const key = await h.createKey(org, { name: 'expiring' });
    const before = Date.now();
    const set = await update(key.id, { expires_in_days: 30 });
    assert.equal(set.status, 200, set.text);
    const expires = Date.parse(set.json.expires_at);
    assert.ok(expires >= before + 30 * DAY && expires <= Date.now() + 30 * DAY, set.json.expires_at);
    assert.equal((await chat(key.key)).status, 200);
    // Pushed into the past straight in the store, then cleared through the API.
    await h.running.store.db
      .updateTable('api_keys')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', key.id)
      .execute();
    await update(key.id, { name: 'expiring' }); // any update drops the cached lookup
    assert.equal((await chat(key.key)).status, 403, 'expired');
    const cleared = await update(key.id, { expires_in_days: null });
    assert.equal(cleared.json.expires_at, null);
    assert.equal((await chat(key.key)).status, 200, 'no expiry any more');
    for (const bad of [0, 3651, 1.5, '7']) {
      const refused = await update(key.id, { expires_in_days: bad });
      assert.equal(refused.status, 400, String(bad));
      assert.match(refused.json.param ?? refused.json.message, /expires_in_days/);
    }
  });

  it('turns debug mode on and off', async () => {
    const key = await h.createKey(org, { name: 'debug' });
    assert.equal((await update(key.id, { debug_mode: true })).json.debug_mode, true);
    assert.equal((await update(key.id, { debug_mode: false })).json.debug_mode, false);
  });

  it('changes the type: a coding agent names its assistant, switching back to api clears it', async () => {
    const key = await h.createKey(org, { name: 'agent' });
    const missing = await update(key.id, { type: 'coding_agent' });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.param, 'coding_assistant');
    const agent = await update(key.id, { type: 'coding_agent', coding_assistant: 'codex' });
    assert.equal(agent.status, 200, agent.text);
    assert.deepEqual([agent.json.type, agent.json.coding_assistant], ['coding_agent', 'codex']);
    const assistant = await update(key.id, { coding_assistant: 'claude_code' });
    assert.equal(assistant.json.coding_assistant, 'claude_code');
    const cleared = await update(key.id, { coding_assistant: null });
    assert.equal(cleared.status, 400, 'a coding agent without an assistant');
    const api = await update(key.id, { type: 'api' });
    assert.deepEqual([api.json.type, api.json.coding_assistant], ['api', null]);
    const stray = await update(key.id, { coding_assistant: 'opencode' });
    assert.equal(stray.status, 400);
    assert.equal(stray.json.param, 'coding_assistant');
    assert.equal((await update(key.id, { coding_assistant: 'cursor' })).status, 400);
  });

  it('still refuses members that are not settings of a key', async () => {
    const key = await h.createKey(org, { name: 'strict' });
    for (const body of [{ organization_id: 'x' }, { key: 'gw-x' }, { email: 'a@b.c' }]) {
      const refused = await update(key.id, body);
      assert.equal(refused.status, 400, JSON.stringify(body));
    }
  });
});
