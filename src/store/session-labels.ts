import type { Store } from './database.js';

export interface SessionLabels {
  /** Key id → its name (deleted keys included: history keeps their name). */
  keys: Map<string, string>;
  /** Member id → email and name. */
  members: Map<string, { email: string; name: string | null }>;
}

/** Names of the keys and members a page of sessions mentions, only the organization's own. */
export async function sessionLabels(
  store: Store,
  organizationId: string,
  keyIds: readonly string[],
  memberIds: readonly string[],
): Promise<SessionLabels> {
  const [keys, members] = await Promise.all([
    keyIds.length === 0
      ? []
      : store.db
          .selectFrom('api_keys')
          .select(['id', 'name'])
          .where('organization_id', '=', organizationId)
          .where('id', 'in', [...keyIds])
          .execute(),
    memberIds.length === 0
      ? []
      : store.db
          .selectFrom('organization_members')
          .select(['id', 'email', 'name'])
          .where('organization_id', '=', organizationId)
          .where('id', 'in', [...memberIds])
          .execute(),
  ]);
  return {
    keys: new Map(keys.map((k) => [k.id, k.name])),
    members: new Map(members.map((m) => [m.id, { email: m.email, name: m.name }])),
  };
}

/** The most values of each filter the sessions page offers. */
export const MAX_FILTER_VALUES = 500;

/**
 * What the organization's sessions can be filtered by: the members and keys their rows name, and
 * the agents that sent them (names without versions), each list bounded.
 */
export async function sessionFilterValues(store: Store, organizationId: string) {
  const rows = () =>
    store.db
      .selectFrom('usage_records')
      .where('organization_id', '=', organizationId)
      .where('session_id', 'is not', null);
  const [memberIds, keyIds, agents] = await Promise.all([
    rows()
      .select('member_id')
      .distinct()
      .where('member_id', 'is not', null)
      .orderBy('member_id')
      .limit(MAX_FILTER_VALUES)
      .execute(),
    rows().select('api_key_id').distinct().orderBy('api_key_id').limit(MAX_FILTER_VALUES).execute(),
    rows()
      .select('agent')
      .distinct()
      .where('agent', 'is not', null)
      .orderBy('agent')
      .limit(MAX_FILTER_VALUES)
      .execute(),
  ]);
  const labels = await sessionLabels(
    store,
    organizationId,
    keyIds.map((r) => r.api_key_id),
    memberIds.map((r) => r.member_id!),
  );
  return {
    members: memberIds.map(({ member_id }) => ({
      id: member_id!,
      ...(labels.members.get(member_id!) ?? { email: null, name: null }),
    })),
    apiKeys: keyIds.map(({ api_key_id }) => ({ id: api_key_id, name: labels.keys.get(api_key_id) ?? null })),
    agents: [...new Set(agents.map((r) => r.agent!.split('/')[0]!))].sort(),
  };
}
