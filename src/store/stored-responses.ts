import type { Store } from './database.js';

/** OpenAI keeps a stored response 30 days; a continuation of an older one is unknown to the gateway. */
export const STORED_RESPONSE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60_000;

/**
 * What the gateway recorded of the responses it returned that the provider keeps (OpenAI
 * Responses with `store` on): per organization and response id, the tokens that response leaves
 * in the provider's stored context. Read by admission to estimate a request that continues one
 * (docs/budgets.md, "Stored context"). Expired rows go lazily, at most once a minute per process.
 */
export class StoredResponses {
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = STORED_RESPONSE_TTL_MS,
  ) {}

  async record(organizationId: string, apiKeyId: string, responseId: string, contextTokens: number): Promise<void> {
    const now = this.now();
    await this.store.db
      .insertInto('stored_response_contexts')
      .values({
        organization_id: organizationId,
        response_id: responseId,
        api_key_id: apiKeyId,
        context_tokens: contextTokens,
        created_at: now,
        expires_at: now + this.ttlMs,
      })
      // An upstream that reuses an id (a mock, a proxy) replaces the context: the latest is what it continues.
      .onConflict((oc) =>
        oc.columns(['organization_id', 'response_id']).doUpdateSet({
          api_key_id: apiKeyId,
          context_tokens: contextTokens,
          created_at: now,
          expires_at: now + this.ttlMs,
        }),
      )
      .execute();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.store.db.deleteFrom('stored_response_contexts').where('expires_at', '<=', now).execute();
    }
  }

  /** The context tokens recorded for a response of this organization; undefined when none (or expired). */
  async contextTokens(organizationId: string, responseId: string): Promise<number | undefined> {
    const row = await this.store.db
      .selectFrom('stored_response_contexts')
      .select('context_tokens')
      .where('organization_id', '=', organizationId)
      .where('response_id', '=', responseId)
      .where('expires_at', '>', this.now())
      .executeTakeFirst();
    return row ? Number(row.context_tokens) : undefined;
  }
}
