import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Store } from './database.js';
import type { Database, ProjectsTable } from './schema.js';
import { DomainClaimConflictError, findClaimConflict, insertClaims } from './project-domains.js';
import { isUniqueViolation } from './unique-violation.js';

// Kept here too: other repositories import it from this module.
export { isUniqueViolation };

export interface Project {
  id: string;
  organizationId: string;
  slug: string;
  name: string;
  domains: string[];
  createdAt: number;
  updatedAt: number;
}

/** A unique constraint refused the write: which one, so the route can name the field. */
export class ProjectConflictError extends Error {
  constructor(
    readonly field: 'slug' | 'domains',
    message: string,
  ) {
    super(message);
  }
}

/** Domains that are verified as soon as they are claimed (local names in development mode). */
export type PreverifiedDomain = (domain: string) => boolean;
const NONE_PREVERIFIED: PreverifiedDomain = () => false;

/**
 * Projects of an organization. Every read and write is scoped by organization id, so an id
 * from another organization behaves exactly like an id that does not exist (OWASP API1).
 * A project's `domains` are its domain claims, pending or verified (store/project-domains.ts).
 */
export class ProjectRepository {
  constructor(
    private readonly store: Store,
    private readonly preverified: PreverifiedDomain = NONE_PREVERIFIED,
  ) {}

  async create(input: { organizationId: string; slug: string; name: string; domains: string[] }): Promise<Project> {
    const now = Date.now();
    const row: ProjectsTable = {
      id: randomUUID(),
      organization_id: input.organizationId,
      slug: input.slug,
      name: input.name,
      created_at: now,
      updated_at: now,
    };
    await this.write(
      { organizationId: row.organization_id, projectId: row.id, domains: input.domains },
      async (trx) => {
        await trx.insertInto('projects').values(row).execute();
        await insertClaims(
          trx,
          { organizationId: row.organization_id, projectId: row.id, domains: input.domains },
          this.preverified,
        );
      },
    );
    return { ...toProject(row), domains: [...input.domains].sort() };
  }

  async get(organizationId: string, id: string): Promise<Project | undefined> {
    const row = await this.store.db
      .selectFrom('projects')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return { ...toProject(row), domains: await this.domainsOf(row.id) };
  }

  /** Keyset page ordered by (created_at, id); `startingAfter` is a project id of this organization. */
  async list(
    organizationId: string,
    limit: number,
    startingAfter?: string,
  ): Promise<{ data: Project[]; hasMore: boolean } | undefined> {
    let query = this.store.db.selectFrom('projects').selectAll().where('organization_id', '=', organizationId);
    if (startingAfter !== undefined) {
      const cursor = await this.store.db
        .selectFrom('projects')
        .select(['created_at', 'id'])
        .where('organization_id', '=', organizationId)
        .where('id', '=', startingAfter)
        .executeTakeFirst();
      if (!cursor) return undefined;
      query = query.where(sql<boolean>`(created_at, id) > (${cursor.created_at}, ${cursor.id})`);
    }
    const rows = await query
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const domains = await this.domainsOfMany(page.map((r) => r.id));
    return {
      data: page.map((r) => ({ ...toProject(r), domains: domains.get(r.id) ?? [] })),
      hasMore: rows.length > limit,
    };
  }

  async update(
    organizationId: string,
    id: string,
    patch: { slug?: string; name?: string; domains?: string[] },
  ): Promise<Project | undefined> {
    let found = false;
    await this.write({ organizationId, projectId: id, domains: patch.domains ?? [] }, async (trx) => {
      const changes: Partial<ProjectsTable> = { updated_at: Date.now() };
      if (patch.slug !== undefined) changes.slug = patch.slug;
      if (patch.name !== undefined) changes.name = patch.name;
      const result = await trx
        .updateTable('projects')
        .set(changes)
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      found = Number(result.numUpdatedRows) > 0;
      if (!found || patch.domains === undefined) return;
      // Kept domains keep their claim (and its verification); only the difference is written.
      const held = (
        await trx.selectFrom('project_domains').select('domain').where('project_id', '=', id).execute()
      ).map((r) => r.domain);
      const wanted = new Set(patch.domains);
      const removed = held.filter((d) => !wanted.has(d));
      const added = patch.domains.filter((d) => !held.includes(d));
      if (removed.length > 0)
        await trx.deleteFrom('project_domains').where('project_id', '=', id).where('domain', 'in', removed).execute();
      await insertClaims(trx, { organizationId, projectId: id, domains: added }, this.preverified);
    });
    return found ? this.get(organizationId, id) : undefined;
  }

  /** Removes the project and everything hanging off it: domains, settings, components, events. */
  async delete(organizationId: string, id: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('projects')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      for (const table of [
        'project_domains',
        'proxy_settings',
        'project_components',
        'event_deliveries',
        'collected_events',
        'warehouse_events',
      ] as const) {
        await trx.deleteFrom(table).where('project_id', '=', id).execute();
      }
      return true;
    });
  }

  /**
   * The project that holds the **verified** claim on `host` (any organization): the collector's
   * lookup. A pending claim is not served. `servePreverified: false` (production mode) also
   * skips claims verified only because they were local names in development mode.
   */
  async findByDomain(
    host: string,
    options: { servePreverified: boolean } = { servePreverified: true },
  ): Promise<{ id: string; organizationId: string } | undefined> {
    let query = this.store.db
      .selectFrom('project_domains')
      .select(['project_id', 'organization_id'])
      .where('domain', '=', host)
      .where('verified_at', 'is not', null);
    if (!options.servePreverified) query = query.where('verification_method', '!=', 'development');
    const row = await query.executeTakeFirst();
    return row && { id: row.project_id, organizationId: row.organization_id };
  }

  private async write(
    claim: { organizationId: string; projectId: string; domains: string[] },
    body: (trx: Transaction<Database>) => Promise<void>,
  ): Promise<void> {
    try {
      await this.store.db.transaction().execute(body);
    } catch (error) {
      if (error instanceof DomainClaimConflictError) throw new ProjectConflictError('domains', error.message);
      if (!isUniqueViolation(error)) throw error;
      // A racing transaction won after this one's checks: find out which rule it broke.
      const conflict = await findClaimConflict(this.store.db, claim.organizationId, claim.projectId, claim.domains);
      if (conflict) throw new ProjectConflictError('domains', conflict.message);
      throw new ProjectConflictError('slug', 'A project with this slug already exists in this organization.');
    }
  }

  private async domainsOf(projectId: string): Promise<string[]> {
    return (await this.domainsOfMany([projectId])).get(projectId) ?? [];
  }

  private async domainsOfMany(projectIds: string[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>();
    if (projectIds.length === 0) return result;
    const rows = await this.store.db
      .selectFrom('project_domains')
      .select(['project_id', 'domain'])
      .where('project_id', 'in', projectIds)
      .orderBy('domain')
      .execute();
    for (const row of rows) result.set(row.project_id, [...(result.get(row.project_id) ?? []), row.domain]);
    return result;
  }
}

function toProject(row: ProjectsTable): Omit<Project, 'domains'> & { domains: string[] } {
  return {
    id: row.id,
    organizationId: row.organization_id,
    slug: row.slug,
    name: row.name,
    domains: [],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
