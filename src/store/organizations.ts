import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { OrganizationsTable } from './schema.js';

export type Organization = OrganizationsTable;

export async function findOrganizationBySlug(store: Store, slug: string): Promise<Organization | undefined> {
  return store.db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function findOrganizationById(store: Store, id: string): Promise<Organization | undefined> {
  return store.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Creates the organization unless one with this slug exists; safe when two processes race. */
export async function ensureOrganization(
  store: Store,
  slug: string,
  name: string,
): Promise<{ organization: Organization; created: boolean }> {
  const existing = await findOrganizationBySlug(store, slug);
  if (existing) return { organization: existing, created: false };
  const organization: Organization = { id: randomUUID(), slug, name, created_at: Date.now() };
  const inserted = await store.db
    .insertInto('organizations')
    .values(organization)
    .onConflict((oc) => oc.column('slug').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
    const winner = await findOrganizationBySlug(store, slug);
    if (!winner) throw new Error(`organization ${slug} vanished while being created`);
    return { organization: winner, created: false };
  }
  return { organization, created: true };
}
