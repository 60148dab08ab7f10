import type { Store } from './database.js';
import type { SessionShareLinksTable } from './schema.js';

export type SessionShareLink = SessionShareLinksTable;

/** Live (neither expired nor revoked) links one session may have at once. */
export const MAX_LIVE_LINKS_PER_SESSION = 20;
/** Live links one organization may have at once. */
export const MAX_LIVE_LINKS_PER_ORGANIZATION = 500;
/** How long an expired or revoked link is kept (its row says why it no longer opens), ms. */
export const DEAD_LINK_RETENTION_MS = 30 * 86_400_000;

const live = (store: Store, organizationId: string, now: number) =>
  store.db
    .selectFrom('session_share_links')
    .where('organization_id', '=', organizationId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);

/** Live links of the organization, and of the one session among them. */
export async function liveLinkCounts(store: Store, organizationId: string, sessionId: string, now: number) {
  const row = await live(store, organizationId, now)
    .select((eb) => [
      eb.fn.countAll<number>().as('organization'),
      eb.fn.sum<number>(eb.case().when('session_id', '=', sessionId).then(1).else(0).end()).as('session'),
    ])
    .executeTakeFirst();
  return { organization: Number(row?.organization ?? 0), session: Number(row?.session ?? 0) };
}

/**
 * Stores a new link and forgets the organization's links that died (expired or revoked) longer
 * ago than the retention: the table holds at most the live links plus a month of dead ones.
 */
export async function insertShareLink(store: Store, link: SessionShareLink): Promise<void> {
  const horizon = link.created_at - DEAD_LINK_RETENTION_MS;
  await store.db.transaction().execute(async (tx) => {
    await tx
      .deleteFrom('session_share_links')
      .where('organization_id', '=', link.organization_id)
      .where((eb) => eb.or([eb('expires_at', '<', horizon), eb('revoked_at', '<', horizon)]))
      .execute();
    await tx.insertInto('session_share_links').values(link).execute();
  });
}

/** A session's links, newest first (dead ones within the retention included). */
export function sessionShareLinks(store: Store, organizationId: string, sessionId: string) {
  return store.db
    .selectFrom('session_share_links')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('session_id', '=', sessionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_LIVE_LINKS_PER_SESSION * 5)
    .execute();
}

export function shareLinkByDigest(store: Store, digest: string): Promise<SessionShareLink | undefined> {
  return store.db.selectFrom('session_share_links').selectAll().where('secret_digest', '=', digest).executeTakeFirst();
}

/** Revokes one of the organization's links; false when it has none with that id. A revoked link stays revoked. */
export async function revokeShareLink(store: Store, organizationId: string, id: string, now: number) {
  const found = await store.db
    .selectFrom('session_share_links')
    .select(['id', 'revoked_at'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found) return undefined;
  if (found.revoked_at === null)
    await store.db
      .updateTable('session_share_links')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  return store.db.selectFrom('session_share_links').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
