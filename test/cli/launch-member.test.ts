import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore } from '../support/fresh-store.js';
import { storeKinds } from '../support/gateway-harness.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { OrganizationMemberRepository } from '../../src/store/organization-members.js';
import { launchMember } from '../../src/cli/launch-member.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/database.js';
import { runCli } from './cli-process.js';

/** Whose key `gateway launch` makes: --member, else the git address when a member, else the owner. */
for (const kind of storeKinds()) {
  describe(`launch member (${kind})`, () => {
    const fixture = freshStore(kind, 'launch_member');
    const org = async (slug: string) => (await ensureOrganization(fixture.store, slug, slug)).organization.id;

    it('in an organization without members the address given becomes its first owner', async () => {
      const viaFlag = await org('first-by-flag');
      const owner = await launchMember(fixture.store, viaFlag, 'Lead@Example.org', undefined);
      assert.equal(owner?.role, 'owner');
      assert.equal(owner?.email, 'lead@example.org');
      assert.equal(owner?.status, 'active');
      const viaGit = await org('first-by-git');
      assert.equal((await launchMember(fixture.store, viaGit, undefined, 'dev@example.org'))?.role, 'owner');
      const nobody = await org('first-nobody');
      assert.equal(await launchMember(fixture.store, nobody, undefined, undefined), null, "the organization's own key");
    });

    it('picks the named member, the git address when a member, else the owner; refuses a stranger', async () => {
      const id = await org('team');
      const members = new OrganizationMemberRepository(fixture.store);
      const owner = await members.addActive({ organizationId: id, email: 'owner@example.org', role: 'owner' });
      const dev = await members.addActive({ organizationId: id, email: 'dev@example.org', role: 'member' });
      await members.invite({
        organizationId: id,
        email: 'new@example.org',
        name: null,
        role: 'member',
        groupId: null,
        ttlMs: 60_000,
      });
      assert.equal((await launchMember(fixture.store, id, 'dev@example.org', 'owner@example.org'))?.id, dev.id);
      assert.equal((await launchMember(fixture.store, id, undefined, 'DEV@example.org'))?.id, dev.id);
      assert.equal((await launchMember(fixture.store, id, undefined, 'visitor@example.org'))?.id, owner.id);
      assert.equal(
        (await launchMember(fixture.store, id, undefined, 'new@example.org'))?.id,
        owner.id,
        'invited, not joined',
      );
      await assert.rejects(launchMember(fixture.store, id, 'visitor@example.org', undefined), /not an active member/);
      await assert.rejects(launchMember(fixture.store, id, 'not an address', undefined), /email address/);
    });
  });
}

describe('admin bootstrap --email', () => {
  it('makes the address an owner and signs the printed token in as it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bootstrap-owner-'));
    try {
      const env = { GATEWAY_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      const boot = await runCli('tsx', ['admin', 'bootstrap', '--org', 'acme', '--email', 'Boss@Example.org'], env);
      assert.equal(boot.status, 0, boot.stderr);
      const printed = JSON.parse(boot.stdout);
      assert.equal(printed.member_email, 'boss@example.org');
      const refused = await runCli('tsx', ['admin', 'bootstrap', '--org', 'acme', '--email', 'nobody'], env);
      assert.notEqual(refused.status, 0);
      const store = await openStore({ dataDir, databaseUrl: undefined, schema: undefined });
      try {
        const member = await store.db
          .selectFrom('organization_members')
          .selectAll()
          .where('id', '=', printed.member_id)
          .executeTakeFirstOrThrow();
        assert.deepEqual([member.role, member.status], ['owner', 'active']);
        const token = await store.db
          .selectFrom('console_tokens')
          .select('member_id')
          .where('organization_id', '=', printed.organization_id)
          .executeTakeFirstOrThrow();
        assert.equal(token.member_id, printed.member_id);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
