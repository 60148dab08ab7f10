import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { usageRecord } from '../support/usage-record.js';
import {
  MAX_LIVE_LINKS_PER_ORGANIZATION,
  MAX_LIVE_LINKS_PER_SESSION,
  DEAD_LINK_RETENTION_MS,
} from '../../src/store/session-share-links.js';
import { digestSecret } from '../../src/secrets/secret-codec.js';

for (const store of storeKinds()) {
  describe(`session share links (${store})`, () => {
    let h: Harness;
    let org: { id: string; slug: string; token: string };
    let other: { id: string; token: string };
    let key: { id: string };
    const now = Date.now();

    const create = (sessionId: string, body: unknown = {}, token = org.token, orgId = org.id) =>
      h.console('POST', `/v1/organizations/${orgId}/sessions/${encodeURIComponent(sessionId)}/share_links`, {
        token,
        body,
      });
    const open = (secret: string | undefined) =>
      h.console('GET', '/v1/shared_session', secret === undefined ? {} : { token: secret });
    const revoke = (id: string, token = org.token, orgId = org.id) =>
      h.console('DELETE', `/v1/organizations/${orgId}/share_links/${id}`, { token });

    before(async () => {
      h = await startHarness({ store });
      org = await h.organization();
      other = await h.organization();
      key = await h.createKey(org, { name: 'ada-laptop' });
      const elsewhere = await h.createKey(other, { name: 'theirs' });
      await h.running.store.db
        .insertInto('usage_records')
        .values([
          usageRecord(org.id, {
            created_at: now - 60_000,
            api_key_id: key.id,
            session_id: 'shared-1',
            agent: 'claude-cli/2.0.14',
            member_id: 'mem_ada',
            uncompressed_input_tokens: 150,
            compression_strategies: 'exact_repeats,mask_old_outputs',
          }),
          usageRecord(org.id, {
            created_at: now - 30_000,
            api_key_id: key.id,
            session_id: 'shared-1',
            agent: 'claude-cli/2.0.14',
          }),
          usageRecord(org.id, { created_at: now - 20_000, api_key_id: key.id, session_id: 'private-2' }),
          usageRecord(other.id, { created_at: now - 20_000, api_key_id: elsewhere.id, session_id: 'theirs-1' }),
        ])
        .execute();
    });
    after(() => h.stop());

    it('makes a link whose secret is shown once and stored only as its digest', async () => {
      const made = await create('shared-1', { expires_in_hours: 2 });
      assert.equal(made.status, 201, made.text);
      assert.match(made.json.token, /^gws_[A-Za-z0-9_-]{43}$/);
      assert.equal(made.json.path, `/shared-session#${made.json.token}`);
      assert.equal(made.json.status, 'active');
      const expires = Date.parse(made.json.expires_at) - Date.parse(made.json.created_at);
      assert.equal(expires, 2 * 3_600_000);
      const row = await h.running.store.db
        .selectFrom('session_share_links')
        .selectAll()
        .where('id', '=', made.json.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.secret_digest, digestSecret(made.json.token));
      assert.ok(!JSON.stringify(row).includes(made.json.token.slice(4)), 'no plaintext secret stored');
      const listed = await h.console('GET', `/v1/organizations/${org.id}/sessions/shared-1/share_links`, {
        token: org.token,
      });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.json.data[0].id, made.json.id);
      assert.equal(listed.json.data[0].token, undefined, 'never shown again');
    });

    it('opens that one session read-only, without a console token and without keys or members', async () => {
      const made = await create('shared-1');
      const shared = await open(made.json.token);
      assert.equal(shared.status, 200, shared.text);
      assert.equal(shared.json.id, 'shared-1');
      assert.equal(shared.json.requests.length, 2);
      assert.equal(shared.json.agent, 'claude-cli');
      assert.deepEqual(shared.json.requests[0].compression_strategies, ['exact_repeats', 'mask_old_outputs']);
      assert.deepEqual(shared.json.requests[1].compression_strategies, []);
      for (const hidden of ['api_key_ids', 'api_keys', 'members']) assert.equal(shared.json[hidden], undefined, hidden);
      assert.equal(shared.json.requests[0].api_key_id, undefined);
      assert.equal(shared.json.requests[0].member_id, undefined);
      assert.ok(
        !shared.text.includes('ada-laptop') && !shared.text.includes(key.id) && !shared.text.includes('mem_ada'),
      );
      assert.equal(shared.json.shared_until, made.json.expires_at);
      // The link is no console token: it opens nothing else.
      const elsewhere = await h.console('GET', `/v1/organizations/${org.id}/sessions/private-2`, {
        token: made.json.token,
      });
      assert.equal(elsewhere.status, 401);
    });

    it('refuses a missing or unknown secret with a 401', async () => {
      assert.equal((await open(undefined)).status, 401);
      const unknown = await open(`gws_${'A'.repeat(43)}`);
      assert.equal(unknown.status, 401);
      assert.match(unknown.json.message, /No share link/);
      assert.equal((await open(org.token)).status, 401, 'a console token is no share link');
    });

    it('a revoked link stops opening at once, with a 410 that says so', async () => {
      const made = await create('shared-1');
      assert.equal((await open(made.json.token)).status, 200);
      const revoked = await revoke(made.json.id);
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(revoked.json.status, 'revoked');
      const gone = await open(made.json.token);
      assert.equal(gone.status, 410, gone.text);
      assert.equal(gone.json.error, 'Gone');
      assert.match(gone.json.message, /revoked/);
      assert.equal((await revoke(made.json.id)).json.status, 'revoked', 'revoking again changes nothing');
    });

    it('an expired link answers a 410 naming its expiry', async () => {
      const made = await create('shared-1', { expires_in_hours: 1 });
      await h.running.store.db
        .updateTable('session_share_links')
        .set({ expires_at: now - 1_000 })
        .where('id', '=', made.json.id)
        .execute();
      const gone = await open(made.json.token);
      assert.equal(gone.status, 410, gone.text);
      assert.match(gone.json.message, /expired at/);
      const listed = await h.console('GET', `/v1/organizations/${org.id}/sessions/shared-1/share_links`, {
        token: org.token,
      });
      assert.equal(listed.json.data.find((l: { id: string }) => l.id === made.json.id).status, 'expired');
    });

    it('keeps organizations apart and refuses read tokens, unknown sessions and bad lifetimes', async () => {
      assert.equal((await create('shared-1', {}, other.token)).status, 403);
      assert.equal((await create('theirs-1')).status, 404, "another organization's session is not this one's");
      assert.equal((await create('no-such-session')).status, 404);
      const made = await create('shared-1');
      assert.equal((await revoke(made.json.id, other.token)).status, 403);
      assert.equal((await revoke(made.json.id, other.token, other.id)).status, 404);
      assert.equal((await revoke('no-such-link')).status, 404);
      const reader = await h.organization(org.slug, 'read');
      assert.equal((await create('shared-1', {}, reader.token)).status, 403);
      assert.equal((await revoke(made.json.id, reader.token)).status, 403);
      for (const body of [
        { expires_in_hours: 0 },
        { expires_in_hours: 721 },
        { expires_in_hours: 1.5 },
        { scope: 'all' },
      ]) {
        const refused = await create('shared-1', body);
        assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
      }
    });

    it(`allows ${MAX_LIVE_LINKS_PER_SESSION} active links per session; a revoked one frees a place`, async () => {
      const links: string[] = [];
      for (;;) {
        const made = await create('private-2');
        if (made.status !== 201) {
          assert.equal(made.status, 409, made.text);
          assert.match(made.json.message, /revoke one first/);
          break;
        }
        links.push(made.json.id);
        assert.ok(links.length <= MAX_LIVE_LINKS_PER_SESSION, 'the cap holds');
      }
      assert.equal(links.length, MAX_LIVE_LINKS_PER_SESSION);
      assert.equal((await revoke(links[0]!)).status, 200);
      assert.equal((await create('private-2')).status, 201);
    });

    it(`allows ${MAX_LIVE_LINKS_PER_ORGANIZATION} active links per organization`, async () => {
      const team = await h.organization();
      const teamKey = await h.createKey(team, { name: 'k' });
      await h.running.store.db
        .insertInto('usage_records')
        .values(usageRecord(team.id, { created_at: now - 1_000, api_key_id: teamKey.id, session_id: 's' }))
        .execute();
      const live = Array.from({ length: MAX_LIVE_LINKS_PER_ORGANIZATION }, (_, i) => ({
        id: `live-${team.id}-${i}`,
        organization_id: team.id,
        session_id: `s-${i}`,
        secret_digest: digestSecret(`${team.id}-${i}`),
        created_at: now,
        expires_at: now + 3_600_000,
        revoked_at: null,
        created_by_token_id: null,
      }));
      await h.running.store.db.insertInto('session_share_links').values(live).execute();
      const refused = await create('s', {}, team.token, team.id);
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.json.message, /revoke some first/);
    });

    it('forgets links that died longer ago than the retention when a new one is made', async () => {
      const old = now - DEAD_LINK_RETENTION_MS - 60_000;
      await h.running.store.db
        .insertInto('session_share_links')
        .values([
          {
            id: 'dead-expired',
            organization_id: org.id,
            session_id: 'shared-1',
            secret_digest: 'a'.repeat(64),
            created_at: old - 1,
            expires_at: old,
            revoked_at: null,
            created_by_token_id: null,
          },
          {
            id: 'dead-revoked',
            organization_id: org.id,
            session_id: 'shared-1',
            secret_digest: 'b'.repeat(64),
            created_at: old - 1,
            expires_at: now + 3_600_000,
            revoked_at: old,
            created_by_token_id: null,
          },
          {
            id: 'other-org-dead',
            organization_id: other.id,
            session_id: 'theirs-1',
            secret_digest: 'c'.repeat(64),
            created_at: old - 1,
            expires_at: old,
            revoked_at: null,
            created_by_token_id: null,
          },
        ])
        .execute();
      assert.equal((await create('shared-1')).status, 201);
      const ids = (await h.running.store.db.selectFrom('session_share_links').select('id').execute()).map((r) => r.id);
      assert.ok(
        !ids.includes('dead-expired') && !ids.includes('dead-revoked'),
        'dead links past the retention are gone',
      );
      assert.ok(ids.includes('other-org-dead'), "another organization's links wait for its own next link");
    });
  });
}
