import type { Store } from './database.js';
import type { ProxySettingsTable } from './schema.js';
import { isUniqueViolation } from './projects.js';

export interface ProxyBackend {
  name: string;
  address: string;
  enable_ssl: boolean;
  check_certificate: string;
  ca_certificate: string;
  sni_hostname: string;
  default: boolean;
  override_host: string;
}

export interface ProxyRoute {
  path: string;
  regex: boolean;
  backend_name: string;
  rank: string;
  continent: string[];
  region: string[];
  country: string[];
}

export interface ProxySettingsRevision {
  projectId: string;
  revision: number;
  description: string;
  isActive: boolean;
  backends: ProxyBackend[];
  routes: ProxyRoute[];
  createdAt: number;
  updatedAt: number;
}

const toRevision = (row: ProxySettingsTable): ProxySettingsRevision => ({
  projectId: row.project_id,
  revision: row.revision,
  description: row.description,
  isActive: row.is_active === 1,
  backends: JSON.parse(row.backends) as ProxyBackend[],
  routes: JSON.parse(row.routes) as ProxyRoute[],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * Numbered revisions of a project's proxy settings. Revisions are immutable except for
 * `description` and `is_active`; at most one is active, which a partial unique index enforces
 * and every activation maintains in one transaction (deactivate the others, then activate).
 * Callers have already checked that the project belongs to the caller's organization.
 */
export class ProxySettingsRepository {
  constructor(private readonly store: Store) {}

  async create(
    projectId: string,
    input: { description: string; isActive: boolean; backends: ProxyBackend[]; routes: ProxyRoute[] },
  ): Promise<ProxySettingsRevision> {
    // Two concurrent creations may pick the same next number: the primary key refuses one, which retries.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.store.db.transaction().execute(async (trx) => {
          const last = await trx
            .selectFrom('proxy_settings')
            .select((eb) => eb.fn.max('revision').as('max'))
            .where('project_id', '=', projectId)
            .executeTakeFirst();
          const now = Date.now();
          const row: ProxySettingsTable = {
            project_id: projectId,
            revision: Number(last?.max ?? 0) + 1,
            description: input.description,
            is_active: 0,
            backends: JSON.stringify(input.backends),
            routes: JSON.stringify(input.routes),
            created_at: now,
            updated_at: now,
          };
          if (input.isActive) {
            await trx
              .updateTable('proxy_settings')
              .set({ is_active: 0, updated_at: now })
              .where('project_id', '=', projectId)
              .where('is_active', '=', 1)
              .execute();
            row.is_active = 1;
          }
          await trx.insertInto('proxy_settings').values(row).execute();
          return toRevision(row);
        });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 5) throw error;
      }
    }
  }

  async get(projectId: string, revision: number): Promise<ProxySettingsRevision | undefined> {
    const row = await this.store.db
      .selectFrom('proxy_settings')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('revision', '=', revision)
      .executeTakeFirst();
    return row && toRevision(row);
  }

  async active(projectId: string): Promise<ProxySettingsRevision | undefined> {
    const row = await this.store.db
      .selectFrom('proxy_settings')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('is_active', '=', 1)
      .executeTakeFirst();
    return row && toRevision(row);
  }

  async list(projectId: string): Promise<ProxySettingsRevision[]> {
    const rows = await this.store.db
      .selectFrom('proxy_settings')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('revision')
      .execute();
    return rows.map(toRevision);
  }

  async update(
    projectId: string,
    revision: number,
    patch: { description?: string; isActive?: boolean },
  ): Promise<ProxySettingsRevision | undefined> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.store.db.transaction().execute(async (trx) => {
          const now = Date.now();
          const exists = await trx
            .selectFrom('proxy_settings')
            .select('revision')
            .where('project_id', '=', projectId)
            .where('revision', '=', revision)
            .executeTakeFirst();
          if (!exists) return undefined;
          if (patch.isActive === true) {
            await trx
              .updateTable('proxy_settings')
              .set({ is_active: 0, updated_at: now })
              .where('project_id', '=', projectId)
              .where('is_active', '=', 1)
              .where('revision', '!=', revision)
              .execute();
          }
          const changes: Partial<ProxySettingsTable> = { updated_at: now };
          if (patch.description !== undefined) changes.description = patch.description;
          if (patch.isActive !== undefined) changes.is_active = patch.isActive ? 1 : 0;
          await trx
            .updateTable('proxy_settings')
            .set(changes)
            .where('project_id', '=', projectId)
            .where('revision', '=', revision)
            .execute();
          const row = await trx
            .selectFrom('proxy_settings')
            .selectAll()
            .where('project_id', '=', projectId)
            .where('revision', '=', revision)
            .executeTakeFirstOrThrow();
          return toRevision(row);
        });
      } catch (error) {
        // Two activations racing on PostgreSQL: the partial unique index refuses the later one; retry.
        if (!isUniqueViolation(error) || attempt >= 5) throw error;
      }
    }
  }
}
