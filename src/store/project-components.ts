import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { ProjectComponentsTable } from './schema.js';

export interface ProjectComponent {
  id: string;
  projectId: string;
  organizationId: string;
  componentId: string;
  componentVersion: string;
  active: boolean;
  settings: Record<string, unknown> | null;
  createdAt: number;
  updatedAt: number;
}

export const toProjectComponent = (row: ProjectComponentsTable): ProjectComponent => ({
  id: row.id,
  projectId: row.project_id,
  organizationId: row.organization_id,
  componentId: row.component_id,
  componentVersion: row.component_version,
  active: row.active === 1,
  settings: row.settings === null ? null : (JSON.parse(row.settings) as Record<string, unknown>),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Component versions attached to a project; scoped by organization and project. */
export class ProjectComponentRepository {
  constructor(private readonly store: Store) {}

  async create(input: Omit<ProjectComponent, 'id' | 'createdAt' | 'updatedAt'>): Promise<ProjectComponent> {
    const now = Date.now();
    const row: ProjectComponentsTable = {
      id: randomUUID(),
      project_id: input.projectId,
      organization_id: input.organizationId,
      component_id: input.componentId,
      component_version: input.componentVersion,
      active: input.active ? 1 : 0,
      settings: input.settings === null ? null : JSON.stringify(input.settings),
      created_at: now,
      updated_at: now,
    };
    await this.store.db.insertInto('project_components').values(row).execute();
    return toProjectComponent(row);
  }

  async get(organizationId: string, projectId: string, id: string): Promise<ProjectComponent | undefined> {
    const row = await this.store.db
      .selectFrom('project_components')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toProjectComponent(row);
  }

  async list(organizationId: string, projectId: string): Promise<ProjectComponent[]> {
    const rows = await this.store.db
      .selectFrom('project_components')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('project_id', '=', projectId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toProjectComponent);
  }

  /** Active components of a project, for the collector (any organization: the project id is trusted). */
  async activeForProject(projectId: string): Promise<ProjectComponent[]> {
    const rows = await this.store.db
      .selectFrom('project_components')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('active', '=', 1)
      .execute();
    return rows.map(toProjectComponent);
  }

  /** For the delivery worker: components by id, whatever their state. */
  async byIds(ids: string[]): Promise<ProjectComponent[]> {
    if (ids.length === 0) return [];
    const rows = await this.store.db.selectFrom('project_components').selectAll().where('id', 'in', ids).execute();
    return rows.map(toProjectComponent);
  }

  async update(
    existing: ProjectComponent,
    patch: { componentId: string; componentVersion: string; active: boolean; settings: Record<string, unknown> | null },
  ): Promise<ProjectComponent> {
    const now = Date.now();
    await this.store.db
      .updateTable('project_components')
      .set({
        component_id: patch.componentId,
        component_version: patch.componentVersion,
        active: patch.active ? 1 : 0,
        settings: patch.settings === null ? null : JSON.stringify(patch.settings),
        updated_at: now,
      })
      .where('organization_id', '=', existing.organizationId)
      .where('id', '=', existing.id)
      .execute();
    return { ...existing, ...patch, updatedAt: now };
  }

  /** Removes the component and its undelivered outbox rows (and, for a warehouse, its stored events). */
  async delete(organizationId: string, projectId: string, id: string): Promise<boolean> {
    return this.store.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('project_components')
        .where('organization_id', '=', organizationId)
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await trx.deleteFrom('event_deliveries').where('project_component_id', '=', id).execute();
      await trx.deleteFrom('warehouse_events').where('project_component_id', '=', id).execute();
      return true;
    });
  }
}
