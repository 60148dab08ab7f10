import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { openStore, type Store } from '../../src/store/database.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { ProjectRepository } from '../../src/store/projects.js';
import { ProjectDomainRepository, type VerifyOutcome } from '../../src/store/project-domains.js';
import { up as migrateDomainClaims } from '../../src/store/migrations/006-domain-claims.js';
import { dropSchema, storeKinds } from '../support/gateway-harness.js';

/**
 * Domain claims in the store: migration 006 keeps the domains of existing deployments served,
 * and the partial unique index lets exactly one organization's claim be verified even when two
 * connections (two instances) verify at the same moment.
 */
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function freshStore(kind: 'sqlite' | 'postgres', schema?: string): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-domains-'));
  const store = await openStore({
    dataDir,
    databaseUrl: kind === 'postgres' ? process.env.GATEWAY_TEST_DATABASE_URL : undefined,
    schema,
  });
  cleanups.unshift(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return store;
}

for (const kind of storeKinds()) {
  describe(`project domain claims in the store (${kind})`, () => {
    const schema = kind === 'postgres' ? `t_domains_${randomBytes(5).toString('hex')}` : undefined;
    if (schema) cleanups.push(() => dropSchema(schema));

    it('migration 006 keeps the domains of projects created before it, verified and served', async () => {
      const store = await freshStore(kind, schema);
      const db = store.db as unknown as Kysely<unknown>;
      // Put the table back in its 003 shape, holding a deployment's domains, and run 006 on it.
      await sql`drop table project_domains`.execute(db);
      await sql`create table project_domains (domain text primary key, project_id text not null, organization_id text not null)`.execute(
        db,
      );
      await sql`create index project_domains_project on project_domains (project_id)`.execute(db);
      const { organization } = await ensureOrganization(store, 'legacy', 'Legacy');
      const projects = new ProjectRepository(store);
      const project = await projects.create({
        organizationId: organization.id,
        slug: 'shop',
        name: 'Shop',
        domains: [],
      });
      const domains = Array.from({ length: 3 }, (_, i) => `legacy-${i}.example.com`);
      for (const domain of domains)
        await sql`insert into project_domains (domain, project_id, organization_id) values (${domain}, ${project.id}, ${organization.id})`.execute(
          db,
        );
      await migrateDomainClaims(db);
      for (const domain of domains)
        assert.deepEqual(await projects.findByDomain(domain), { id: project.id, organizationId: organization.id });
      const claims = await new ProjectDomainRepository(store).list(project.id);
      assert.deepEqual(
        claims.map((c) => [
          c.domain,
          c.verificationMethod,
          c.verifiedAt !== null,
          /^gateway-verification=/.test(c.token),
        ]),
        domains.map((d) => [d, 'preexisting', true, true]),
      );
      const other = await ensureOrganization(store, 'latecomer', 'Latecomer');
      await assert.rejects(
        projects.create({ organizationId: other.organization.id, slug: 'x', name: 'x', domains: [domains[0]!] }),
        /verified by another organization/,
      );
    });

    it('a production instance does not serve claims verified only as local names in development mode', async () => {
      const store = await freshStore(kind, schema && `${schema}_dev`);
      if (schema) cleanups.push(() => dropSchema(`${schema}_dev`));
      const { organization } = await ensureOrganization(store, 'dev', 'Dev');
      const development = new ProjectRepository(store, (domain) => domain.endsWith('.test'));
      const project = await development.create({
        organizationId: organization.id,
        slug: 'dev',
        name: 'Dev',
        domains: ['shop.test', 'shop.example.com'],
      });
      const served = { id: project.id, organizationId: organization.id };
      assert.deepEqual(await development.findByDomain('shop.test'), served);
      assert.equal(await development.findByDomain('shop.test', { servePreverified: false }), undefined);
      // Pending claims are served by nobody.
      assert.equal(await development.findByDomain('shop.example.com'), undefined);
    });

    it('two connections verifying one domain for two organizations at once: one wins, the other is refused and dropped', async () => {
      const first = await freshStore(kind, schema && `${schema}_race`);
      if (schema) cleanups.push(() => dropSchema(`${schema}_race`));
      // On PostgreSQL a second pool on the same schema stands for a second instance.
      const second = kind === 'postgres' ? await freshStore(kind, `${schema}_race`) : first;
      const orgs = await Promise.all(['race-a', 'race-b'].map((slug) => ensureOrganization(first, slug, slug)));
      const projects = new ProjectRepository(first);
      const domains = Array.from({ length: 20 }, () => `race-${randomUUID().slice(0, 8)}.example.com`);
      const owned = await Promise.all(
        orgs.map(({ organization }) =>
          projects.create({ organizationId: organization.id, slug: 'p', name: 'p', domains }),
        ),
      );
      const repos = [new ProjectDomainRepository(first), new ProjectDomainRepository(second)];
      const outcomes: VerifyOutcome[][] = await Promise.all(
        domains.map((domain) =>
          Promise.all(
            owned.map((project, i) =>
              repos[i]!.markVerified({ organizationId: project.organizationId, projectId: project.id, domain }, 'dns'),
            ),
          ),
        ),
      );
      for (const [i, pair] of outcomes.entries()) {
        const statuses = pair.map((o) => o.status).sort();
        assert.deepEqual(statuses, ['taken', 'verified'], domains[i]);
        const rows = await first.db
          .selectFrom('project_domains')
          .select(['organization_id', 'verified_at'])
          .where('domain', '=', domains[i]!)
          .execute();
        // The loser's claim is gone; the winner's is the only row and it is verified.
        assert.equal(rows.length, 1);
        assert.notEqual(rows[0]!.verified_at, null);
      }
    });
  });
}
