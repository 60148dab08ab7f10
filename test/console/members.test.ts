import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import {
  MAX_MEMBERS_PER_ORGANIZATION,
  MAX_MEMBER_ROWS_PER_ORGANIZATION,
} from '../../src/store/organization-members.js';
import { MAX_GROUPS_PER_ORGANIZATION } from '../../src/store/member-groups.js';

type Org = { id: string; token: string };

for (const store of storeKinds()) {
  describe(`console members (${store})`, () => {
    let h: Harness;
    let org: Org;
    let other: Org;

    const api = (method: string, path: string, token: string, body?: unknown) =>
      h.console(method, path, { token, ...(body !== undefined ? { body } : {}) });
    const invite = (body: Record<string, unknown>, as: Org = org) =>
      api('POST', `/v1/organizations/${as.id}/members`, as.token, body);
    const accept = (token: string) => h.console('POST', '/v1/invites/accept', { body: { token } });
    /** Invites and accepts: the member and its console token. */
    async function join(email: string, role = 'member') {
      const invited = await invite({ email, role });
      assert.equal(invited.status, 201, invited.text);
      const accepted = await accept(invited.json.invite_token);
      assert.equal(accepted.status, 201, accepted.text);
      return { id: accepted.json.member.id as string, token: accepted.json.console_token.token as string };
    }
    const chat = (key: string) =>
      h.gateway('POST', '/v1/chat/completions', {
        token: key,
        body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hi' }] },
      });

    before(async () => {
      h = await startHarness({ store });
      org = await h.organization();
      other = await h.organization();
    });
    after(() => h.stop());

    it('an invite is a link with a one-time secret, stored only as its digest, that activates the member', async () => {
      const invited = await invite({ email: 'Ada@Example.org', name: 'Ada', role: 'admin' });
      assert.equal(invited.status, 201, invited.text);
      assert.equal(invited.json.email, 'ada@example.org');
      assert.equal(invited.json.status, 'invited');
      assert.match(invited.json.invite_url, /^https:\/\/[^/]+\/invite#gwi_/);
      assert.ok(invited.json.invite_url.endsWith(invited.json.invite_token));
      const row = await h.running.store.db
        .selectFrom('organization_members')
        .selectAll()
        .where('id', '=', invited.json.id)
        .executeTakeFirstOrThrow();
      assert.notEqual(row.invite_digest, invited.json.invite_token);
      assert.equal(row.invite_digest?.length, 64);

      const accepted = await accept(invited.json.invite_token);
      assert.equal(accepted.status, 201, accepted.text);
      assert.equal(accepted.json.member.status, 'active');
      const token = await h.running.store.db
        .selectFrom('console_tokens')
        .select(['member_id'])
        .where('id', '=', accepted.json.console_token.id)
        .executeTakeFirstOrThrow();
      assert.equal(token.member_id, invited.json.id);
      const me = await api('GET', '/v1/organizations/me', accepted.json.console_token.token);
      assert.equal(me.json.id, org.id);
      assert.equal(me.json.token.permission, 'admin', 'an admin member acts as admin');
      assert.deepEqual(me.json.token.member, { id: invited.json.id, email: 'ada@example.org', role: 'admin' });
      assert.equal((await api('GET', '/v1/organizations/me', org.token)).json.token.member, null);

      const again = await accept(invited.json.invite_token);
      assert.equal(again.status, 404, 'single use');
      assert.equal((await invite({ email: 'ada@example.org' })).status, 409, 'already a member');
    });

    it('an expired invite is refused and a fresh link replaces it', async () => {
      const invited = await invite({ email: 'late@example.org' });
      await h.running.store.db
        .updateTable('organization_members')
        .set({ invite_expires_at: Date.now() - 1 })
        .where('id', '=', invited.json.id)
        .execute();
      const refused = await accept(invited.json.invite_token);
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.json.message, /expired/);
      const fresh = await api('POST', `/v1/organizations/${org.id}/members/${invited.json.id}/invite`, org.token);
      assert.equal(fresh.status, 201, fresh.text);
      assert.equal((await accept(invited.json.invite_token)).status, 404, 'the old link is dead');
      assert.equal((await accept(fresh.json.invite_token)).status, 201);
      for (const bad of ['', 'x'.repeat(201), 'not a token!']) assert.equal((await accept(bad)).status, 400, bad);
    });

    it('the last owner can be neither demoted nor removed', async () => {
      const solo = await h.organization();
      const first = await invite({ email: 'owner@example.org', role: 'owner' }, solo);
      const owner = await accept(first.json.invite_token);
      const ownerId = owner.json.member.id as string;
      const path = `/v1/organizations/${solo.id}/members/${ownerId}`;
      const demoted = await api('POST', path, solo.token, { role: 'admin' });
      assert.equal(demoted.status, 409, demoted.text);
      assert.equal((await api('DELETE', path, solo.token)).status, 409);
      const second = await invite({ email: 'second@example.org', role: 'owner' }, solo);
      assert.equal((await accept(second.json.invite_token)).status, 201);
      assert.equal((await api('POST', path, solo.token, { role: 'admin' })).json.role, 'admin');
      // An admin may not touch the owner role.
      const admin = owner.json.console_token.token as string;
      const promote = await api('POST', path, admin, { role: 'owner' });
      assert.equal(promote.status, 403, promote.text);
    });

    it('two owners demoting each other at once leave one owner', async () => {
      const pair = await h.organization();
      const owners: string[] = [];
      for (const email of ['a@example.org', 'b@example.org']) {
        const invited = await invite({ email, role: 'owner' }, pair);
        owners.push((await accept(invited.json.invite_token)).json.member.id);
      }
      const demote = (id: string) =>
        id === owners[0]
          ? api('POST', `/v1/organizations/${pair.id}/members/${id}`, pair.token, { role: 'member' })
          : api('DELETE', `/v1/organizations/${pair.id}/members/${id}`, pair.token);
      const statuses = (await Promise.all(owners.map(demote))).map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 409]);
      const left = await api('GET', `/v1/organizations/${pair.id}/members`, pair.token);
      assert.equal(left.json.data.filter((m: { role: string }) => m.role === 'owner').length, 1);
    });

    it('a member sees and manages only its own keys and usage', async () => {
      const alice = await join('alice@example.org');
      const bob = await join('bob@example.org');
      const orgKey = await h.createKey(org, { name: 'shared' });
      const bobKey = await h.createKey(org, { name: 'bob', member_id: bob.id });
      assert.equal(bobKey.member_id, bob.id);

      const own = await h.createKey({ id: org.id, token: alice.token }, { name: 'mine' });
      assert.equal(own.member_id, alice.id, "a member's new key is its own");
      const listed = await api('GET', `/v1/organizations/${org.id}/api_keys`, alice.token);
      assert.deepEqual(
        listed.json.data.map((k: { id: string }) => k.id),
        [own.id],
      );
      for (const key of [orgKey, bobKey]) {
        assert.equal((await api('GET', `/v1/organizations/${org.id}/api_keys/${key.id}`, alice.token)).status, 404);
        assert.equal(
          (await api('GET', `/v1/organizations/${org.id}/api_keys/${key.id}/reveal`, alice.token)).status,
          404,
        );
        assert.equal((await api('DELETE', `/v1/organizations/${org.id}/api_keys/${key.id}`, alice.token)).status, 404);
        const moved = await api('POST', `/v1/organizations/${org.id}/api_keys/${key.id}`, alice.token, { name: 'x' });
        assert.equal(moved.status, 404);
      }
      const forOther = await api('POST', `/v1/organizations/${org.id}/api_keys`, alice.token, {
        name: 'b',
        member_id: bob.id,
      });
      assert.equal(forOther.status, 403);
      const giveAway = await api('POST', `/v1/organizations/${org.id}/api_keys/${own.id}`, alice.token, {
        member_id: null,
      });
      assert.equal(giveAway.status, 403);
      // Managing people and everything outside keys and usage is closed to a member.
      assert.equal((await invite({ email: 'eve@example.org' }, { id: org.id, token: alice.token })).status, 403);
      assert.equal((await api('GET', `/v1/organizations/${org.id}/member_groups`, alice.token)).status, 403);
      assert.equal((await api('GET', '/v1/projects', alice.token)).status, 403);
      assert.equal((await api('GET', '/v1/api_tokens', alice.token)).status, 403);
      const spend = await api('GET', `/v1/organizations/${org.id}/usage/keys`, alice.token);
      assert.deepEqual(
        spend.json.data.map((k: { api_key_id: string }) => k.api_key_id),
        [own.id],
      );
      const people = await api('GET', `/v1/organizations/${org.id}/members`, alice.token);
      assert.deepEqual(
        people.json.data.map((m: { id: string }) => m.id),
        [alice.id],
      );

      // Usage rows carry the key's member; a member's summary is its own, whatever it asks.
      for (const key of [own.key, own.key, bobKey.key, orgKey.key]) assert.equal((await chat(key)).status, 200);
      const rows = await h.running.store.db
        .selectFrom('usage_records')
        .select(['api_key_id', 'member_id'])
        .where('organization_id', '=', org.id)
        .execute();
      const memberOf = new Map(rows.map((r) => [r.api_key_id, r.member_id]));
      assert.equal(memberOf.get(own.id), alice.id);
      assert.equal(memberOf.get(bobKey.id), bob.id);
      assert.equal(memberOf.get(orgKey.id), null);
      const summary = (token: string, query = '') =>
        api('GET', `/v1/organizations/${org.id}/usage/summary?period=24h${query}`, token);
      assert.equal((await summary(alice.token)).json.totals.requests, 2);
      assert.equal((await summary(alice.token, `&member_id=${bob.id}`)).status, 403);
      assert.equal((await summary(org.token, `&member_id=${bob.id}`)).json.totals.requests, 1);
      assert.equal((await summary(org.token)).json.totals.requests, 4);
      const exported = await api('GET', `/v1/organizations/${org.id}/logs/export?format=json`, alice.token);
      assert.equal(exported.status, 200, exported.text);
      assert.deepEqual([...new Set(exported.json.map((r: { api_key_id: string }) => r.api_key_id))], [own.id]);
      const sessions = (query = '') => api('GET', `/v1/organizations/${org.id}/sessions${query}`, alice.token);
      assert.equal((await sessions()).status, 200);
      assert.equal((await sessions(`?member_id=${bob.id}`)).status, 403);
    });

    it('a key is owned only by a member of its own organization', async () => {
      const stranger = await invite({ email: 'stranger@example.org' }, other);
      const refused = await api('POST', `/v1/organizations/${org.id}/api_keys`, org.token, {
        name: 'x',
        member_id: stranger.json.id,
      });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.param, 'member_id');
    });

    it("another organization's token is refused; another organization's member is not found", async () => {
      const carol = await invite({ email: 'carol@example.org' });
      assert.equal((await api('GET', `/v1/organizations/${org.id}/members`, other.token)).status, 403);
      const foreign = await api('DELETE', `/v1/organizations/${org.id}/members/${carol.json.id}`, other.token);
      assert.equal(foreign.status, 403);
      const crossed = await api('DELETE', `/v1/organizations/${other.id}/members/${carol.json.id}`, other.token);
      assert.equal(crossed.status, 404);
      const patched = await api('POST', `/v1/organizations/${other.id}/members/${carol.json.id}`, other.token, {
        role: 'admin',
      });
      assert.equal(patched.status, 404);
      const stillThere = await api('GET', `/v1/organizations/${org.id}/members/${carol.json.id}`, org.token);
      assert.equal(stillThere.json.role, 'member');
    });

    it('a role change applies to the member’s next request; removal ends its sign-in and turns its keys off', async () => {
      const dan = await join('dan@example.org');
      const danKey = await h.createKey({ id: org.id, token: dan.token }, { name: 'dan' });
      assert.equal((await invite({ email: 'x1@example.org' }, { id: org.id, token: dan.token })).status, 403);
      await api('POST', `/v1/organizations/${org.id}/members/${dan.id}`, org.token, { role: 'admin' });
      assert.equal((await invite({ email: 'x1@example.org' }, { id: org.id, token: dan.token })).status, 201);
      assert.equal((await chat(danKey.key)).status, 200);

      const removed = await api('DELETE', `/v1/organizations/${org.id}/members/${dan.id}`, org.token);
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(removed.json.deactivated_api_key_ids, [danKey.id]);
      assert.equal((await api('GET', '/v1/organizations/me', dan.token)).status, 401);
      assert.notEqual((await chat(danKey.key)).status, 200, 'the key stops working');
      const kept = await api('GET', `/v1/organizations/${org.id}/api_keys/${danKey.id}`, org.token);
      assert.equal(kept.json.active, false, 'kept, off, for its history');
      // Invited again later: a fresh invite for the same address.
      assert.equal((await invite({ email: 'dan@example.org' })).status, 201);
    });

    it('groups hold bounded JSON settings; members join and leave them', async () => {
      const groups = `/v1/organizations/${org.id}/member_groups`;
      const made = await api('POST', groups, org.token, { name: 'backend', settings: { daily_usd: 50 } });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.json.settings, { daily_usd: 50 });
      assert.equal((await api('POST', groups, org.token, { name: 'backend' })).status, 409);
      const big = await api('POST', groups, org.token, { name: 'big', settings: { blob: 'x'.repeat(9_000) } });
      assert.equal(big.status, 400);
      assert.equal(big.json.param, 'settings');
      assert.equal((await api('POST', groups, org.token, { name: 'bad', settings: [1] })).status, 400);
      const updated = await api('POST', `${groups}/${made.json.id}`, org.token, { settings: { daily_usd: 60 } });
      assert.deepEqual(updated.json.settings, { daily_usd: 60 });

      const erin = await invite({ email: 'erin@example.org', group_id: made.json.id });
      assert.equal(erin.json.group_id, made.json.id);
      const elsewhere = await api('POST', `/v1/organizations/${other.id}/member_groups`, other.token, {
        name: 'theirs',
      });
      const crossGroup = await api('POST', `/v1/organizations/${org.id}/members/${erin.json.id}`, org.token, {
        group_id: elsewhere.json.id,
      });
      assert.equal(crossGroup.status, 400);
      assert.equal(
        (await api('GET', `/v1/organizations/${other.id}/member_groups/${made.json.id}`, other.token)).status,
        404,
      );
      assert.equal((await api('DELETE', `${groups}/${made.json.id}`, org.token)).status, 200);
      const after = await api('GET', `/v1/organizations/${org.id}/members/${erin.json.id}`, org.token);
      assert.equal(after.json.group_id, null);
    });

    it("an organization's members, past members and groups are capped", async () => {
      const capped = await h.organization();
      const now = Date.now();
      const rows = (count: number, status: 'active' | 'removed', prefix: string) =>
        Array.from({ length: count }, (_, i) => ({
          id: `${prefix}-${capped.id}-${i}`,
          organization_id: capped.id,
          email: `${prefix}${i}@example.org`,
          name: null,
          role: 'member' as const,
          group_id: null,
          status,
          invite_digest: null,
          invite_expires_at: null,
          created_at: now,
          updated_at: now,
          joined_at: now,
        }));
      const insert = async (values: ReturnType<typeof rows>) => {
        for (let at = 0; at < values.length; at += 500)
          await h.running.store.db
            .insertInto('organization_members')
            .values(values.slice(at, at + 500))
            .execute();
      };
      await insert(rows(MAX_MEMBERS_PER_ORGANIZATION, 'active', 'm'));
      const full = await invite({ email: 'one-more@example.org' }, capped);
      assert.equal(full.status, 409, full.text);
      const listed = await api('GET', `/v1/organizations/${capped.id}/members`, capped.token);
      assert.equal(listed.json.data.length, MAX_MEMBERS_PER_ORGANIZATION);
      await h.running.store.db
        .updateTable('organization_members')
        .set({ status: 'removed' })
        .where('organization_id', '=', capped.id)
        .execute();
      await insert(rows(MAX_MEMBER_ROWS_PER_ORGANIZATION - MAX_MEMBERS_PER_ORGANIZATION, 'removed', 'r'));
      assert.equal((await invite({ email: 'one-more@example.org' }, capped)).status, 409, 'past members bound too');
      assert.equal((await invite({ email: 'm1@example.org' }, capped)).status, 201, 'a past member may come back');

      await h.running.store.db
        .insertInto('member_groups')
        .values(
          Array.from({ length: MAX_GROUPS_PER_ORGANIZATION }, (_, i) => ({
            id: `g-${capped.id}-${i}`,
            organization_id: capped.id,
            name: `group ${i}`,
            settings: '{}',
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      const groups = await api('POST', `/v1/organizations/${capped.id}/member_groups`, capped.token, {
        name: 'one more',
      });
      assert.equal(groups.status, 409, groups.text);
    });
  });
}
