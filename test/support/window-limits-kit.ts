import { randomUUID } from 'node:crypto';
import type { Harness } from './gateway-harness.js';
import type { MockUpstream } from './mock-upstreams/index.js';

/**
 * Window limits tests' shared pieces (docs/limits.md). A request's worst case is
 * `prompt × 1.1 × $1/MTok + max_tokens (1) × $400,000/MTok` ≈ $0.40; the mock bills 1,000 prompt
 * tokens (far more than the gateway counts), so each request costs up to $0.001 beyond its
 * reservation: the documented per-request bound.
 */
export const LIMIT_PRICING = { input_per_mtok: 1, output_per_mtok: 400_000 };
export const LIMIT_MODEL = 'test/limited';
export const BILLED_PROMPT_TOKENS = 1_000;
/** What one request may cost beyond its reservation (docs/limits.md, "The bound"). */
export const PER_REQUEST_BOUND_MICRO_USD = BILLED_PROMPT_TOKENS * LIMIT_PRICING.input_per_mtok;
export const limitedBody = { model: LIMIT_MODEL, messages: [{ role: 'user', content: 'spend' }], max_tokens: 1 };

export function limitsConfig(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
    models: [{ id: LIMIT_MODEL, providers: [{ provider: 'mock-openai', model: 'limited' }], pricing: LIMIT_PRICING }],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

/** Answers take a little while, so concurrent requests hold their reservations at once. */
export function billingMock(mock: MockUpstream, hangMs = 50): void {
  mock.setScenario({ usage: { inputTokens: BILLED_PROMPT_TOKENS, outputTokens: 1 }, hangBeforeHeadersMs: hangMs });
}

/** A member of the organization (straight in the store: the members API is another module's), optionally in a new group. */
export async function addMember(
  h: Harness,
  organizationId: string,
  options: { group?: boolean } = {},
): Promise<{ memberId: string; groupId: string | null }> {
  const now = Date.now();
  const db = h.running.store.db;
  let groupId: string | null = null;
  if (options.group) {
    groupId = randomUUID();
    await db
      .insertInto('member_groups')
      .values({
        id: groupId,
        organization_id: organizationId,
        name: `g-${groupId}`,
        settings: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  const memberId = randomUUID();
  await db
    .insertInto('organization_members')
    .values({
      id: memberId,
      organization_id: organizationId,
      email: `${memberId}@example.test`,
      name: null,
      role: 'member',
      group_id: groupId,
      status: 'active',
      invite_digest: null,
      invite_expires_at: null,
      created_at: now,
      updated_at: now,
      joined_at: now,
    })
    .execute();
  return { memberId, groupId };
}

/** A gateway key of the organization owned by `memberId`. */
export async function memberKey(
  h: Harness,
  org: { id: string; token: string },
  memberId: string,
): Promise<{ id: string; key: string }> {
  const key = await h.createKey(org, { name: `key of ${memberId}` });
  await h.running.store.db.updateTable('api_keys').set({ member_id: memberId }).where('id', '=', key.id).execute();
  return key as { id: string; key: string };
}

/** Sets a limit through the console API; returns its id. */
export async function setLimit(
  h: Harness,
  org: { id: string; token: string },
  body: { subject_kind: string; subject_id: string; metric: string; window: string; amount: number },
): Promise<string> {
  const result = await h.console('POST', `/v1/organizations/${org.id}/limits`, { token: org.token, body });
  if (result.status !== 201 && result.status !== 200) throw new Error(`setLimit: ${result.status} ${result.text}`);
  return (result.json as { id: string }).id;
}

/** Spent and reserved micro-USD of every window of a limit. */
export async function limitWindowSpend(h: Harness, limitId: string): Promise<{ spent: number; reserved: number }> {
  const rows = await h.running.store.db
    .selectFrom('limit_window_spend')
    .select(['spent_micro_usd', 'reserved_micro_usd'])
    .where('limit_id', '=', limitId)
    .execute();
  return {
    spent: rows.reduce((sum, r) => sum + Number(r.spent_micro_usd), 0),
    reserved: rows.reduce((sum, r) => sum + Number(r.reserved_micro_usd), 0),
  };
}
