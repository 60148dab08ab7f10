import type { Store } from './database.js';

/** An organization's allow-lists; null: no restriction of that kind. */
export interface AllowLists {
  models: string[] | null;
  providers: string[] | null;
  updatedAt: number | null;
}

export interface AllowListsPatch {
  models?: string[] | null;
  providers?: string[] | null;
}

/** Entries one allow-list may hold (the console's schema refuses more). */
export const MAX_ALLOW_LIST_ENTRIES = 500;

export const NO_ALLOW_LISTS: AllowLists = Object.freeze({ models: null, providers: null, updatedAt: null });

const parsed = (text: string | null) => (text === null ? null : (JSON.parse(text) as string[]));
const serialised = (list: string[] | null) => (list === null ? null : JSON.stringify(list));

/** The organization's model and provider allow-lists (migration 029), one row per organization that set any. */
export class AllowListRepository {
  constructor(private readonly store: Store) {}

  async read(organizationId: string): Promise<AllowLists> {
    const row = await this.store.db
      .selectFrom('organization_allow_lists')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    if (!row) return NO_ALLOW_LISTS;
    return { models: parsed(row.allowed_models), providers: parsed(row.allowed_providers), updatedAt: row.updated_at };
  }

  /** Sets the lists the patch names (null lifts a restriction), keeping the other; one upsert. */
  async update(organizationId: string, patch: AllowListsPatch): Promise<AllowLists> {
    const current = await this.read(organizationId);
    const next: AllowLists = {
      models: patch.models !== undefined ? patch.models : current.models,
      providers: patch.providers !== undefined ? patch.providers : current.providers,
      updatedAt: Date.now(),
    };
    const values = {
      allowed_models: serialised(next.models),
      allowed_providers: serialised(next.providers),
      updated_at: next.updatedAt!,
    };
    await this.store.db
      .insertInto('organization_allow_lists')
      .values({ organization_id: organizationId, ...values })
      .onConflict((oc) => oc.column('organization_id').doUpdateSet(values))
      .execute();
    return next;
  }
}
