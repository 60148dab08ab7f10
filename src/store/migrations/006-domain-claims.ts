import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * Project domains become claims that an organization must verify (issue 16, row 6). Before,
 * `project_domains.domain` was the primary key: the first organization to name a domain got
 * it and the collector served it at once. Now:
 * - one claim per (domain, organization): several organizations may hold pending claims;
 * - `verified_at` is set once the organization proved control of the domain; the partial
 *   unique index lets at most one claim per domain be verified, so two instances verifying
 *   for two organizations at once cannot both win (the second commit gets a unique violation);
 * - `token` is what the organization publishes (DNS TXT or well-known file) to prove control.
 * Rows that existed before are kept as verified (`preexisting`) so running deployments keep
 * collecting (docs/decisions.md, "Project domains: existing rows").
 */
interface Tables {
  project_domains: { domain: string; project_id: string; organization_id: string };
  project_domains_v6: {
    domain: string;
    organization_id: string;
    project_id: string;
    token: string;
    created_at: number;
    verified_at: number | null;
    verification_method: string | null;
  };
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped as Kysely<Tables>;
  await db.schema
    .createTable('project_domains_v6')
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('verified_at', 'bigint')
    .addColumn('verification_method', 'text')
    .addPrimaryKeyConstraint('project_domains_claim_pk', ['domain', 'organization_id'])
    .execute();

  const now = Date.now();
  const existing = await db.selectFrom('project_domains').selectAll().execute();
  for (let i = 0; i < existing.length; i += 500) {
    await db
      .insertInto('project_domains_v6')
      .values(
        existing.slice(i, i + 500).map((row) => ({
          domain: row.domain,
          organization_id: row.organization_id,
          project_id: row.project_id,
          // The same form as src/store/project-domains.ts's tokens (a migration keeps its own copy).
          token: `gateway-verification=${randomBytes(24).toString('base64url')}`,
          created_at: now,
          verified_at: now,
          verification_method: 'preexisting',
        })),
      )
      .execute();
  }

  await db.schema.dropTable('project_domains').execute();
  await db.schema.alterTable('project_domains_v6').renameTo('project_domains').execute();
  await db.schema.createIndex('project_domains_project').on('project_domains').column('project_id').execute();
  // The collector's lookup (verified claims by host) and the one-verified-claim-per-domain rule.
  await sql`create unique index project_domains_verified on project_domains (domain) where verified_at is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Back to one row per domain: only verified claims survive (they are the ones that were served).
  await db.schema
    .createTable('project_domains_v3')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into project_domains_v3 (domain, project_id, organization_id)
            select domain, project_id, organization_id from project_domains where verified_at is not null`.execute(db);
  await db.schema.dropTable('project_domains').execute();
  await db.schema.alterTable('project_domains_v3').renameTo('project_domains').execute();
  await db.schema.createIndex('project_domains_project').on('project_domains').column('project_id').execute();
}
