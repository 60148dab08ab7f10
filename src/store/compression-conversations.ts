import { sql } from 'kysely';
import type { Store } from './database.js';
import type { CompressionConversationsTable } from './schema.js';
import type { ConversationState } from '../compress/conversation-state.js';

/** The engine's conversation state, stored as it is (src/compress/conversation-state.ts has the meaning). */
export type StoredConversation = ConversationState;

/** A conversation unused this long is forgotten (its length stays in no history after that). */
export const CONVERSATION_TTL_MS = 3 * 24 * 60 * 60 * 1000;
/** A conversation idle this long counts as finished in its key's history. */
const FINISHED_AFTER_MS = 30 * 60 * 1000;
const HISTORY_ROWS = 200;
const HISTORY_CACHE_MS = 60_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * Conversation state of the compression engine, shared by every gateway instance on the store.
 * One row per key and conversation id. Saving keeps the larger rewrite boundary when two
 * instances race (a boundary only ever moves forward, so the prefix they rebuild agrees), and
 * the upstream's cache usage is attached to the request that produced it only (a later request
 * of the same conversation may already have replaced the row). Expired rows go lazily, at most
 * once a minute per process, when a conversation is saved.
 */
export class CompressionConversations {
  private lastSweep = 0;
  private readonly histories = new Map<string, { at: number; lengths: readonly number[] }>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = CONVERSATION_TTL_MS,
  ) {}

  async load(apiKeyId: string, conversationId: string): Promise<StoredConversation | undefined> {
    const row = await this.store.db
      .selectFrom('compression_conversations')
      .selectAll()
      .where('api_key_id', '=', apiKeyId)
      .where('conversation_id', '=', conversationId)
      .where('expires_at', '>', this.now())
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async save(apiKeyId: string, conversationId: string, state: StoredConversation): Promise<void> {
    const now = this.now();
    const row: CompressionConversationsTable = {
      api_key_id: apiKeyId,
      conversation_id: conversationId,
      mask_before: state.maskBefore,
      rewrite_at: state.rewriteAt,
      requests: state.requests,
      last_request_at: state.lastRequestAt ?? now,
      last_cache_read: state.lastCacheRead,
      last_cache_write: state.lastCacheWrite,
      saved_units: Math.round(state.savedUnits),
      created_at: now,
      expires_at: now + this.ttlMs,
    };
    const { api_key_id: _k, conversation_id: _c, created_at: _t, ...update } = row;
    await this.store.db
      .insertInto('compression_conversations')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['api_key_id', 'conversation_id']).doUpdateSet({
          ...update,
          // A boundary never moves back: a racing instance with an older view keeps the newer one.
          mask_before: sql<number>`case when excluded.mask_before > compression_conversations.mask_before then excluded.mask_before else compression_conversations.mask_before end`,
        }),
      )
      .execute();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.deleteExpired().catch(() => undefined);
    }
  }

  /** The upstream's cache usage for the conversation's request number `requests`. */
  async recordUsage(
    apiKeyId: string,
    conversationId: string,
    requests: number,
    usage: { cacheRead: number; cacheWrite: number },
  ): Promise<void> {
    await this.store.db
      .updateTable('compression_conversations')
      .set({ last_cache_read: usage.cacheRead, last_cache_write: usage.cacheWrite })
      .where('api_key_id', '=', apiKeyId)
      .where('conversation_id', '=', conversationId)
      .where('requests', '=', requests)
      .execute();
  }

  /**
   * Lengths (requests) of the key's finished conversations, newest first: idle for 30 minutes
   * and not expired. Kept for a minute per key; the policy needs a distribution, not the latest row.
   */
  async history(apiKeyId: string): Promise<readonly number[]> {
    const now = this.now();
    const cached = this.histories.get(apiKeyId);
    if (cached && now - cached.at < HISTORY_CACHE_MS) return cached.lengths;
    const rows = await this.store.db
      .selectFrom('compression_conversations')
      .select('requests')
      .where('api_key_id', '=', apiKeyId)
      .where('last_request_at', '<', now - FINISHED_AFTER_MS)
      .where('expires_at', '>', now)
      .orderBy('last_request_at', 'desc')
      .limit(HISTORY_ROWS)
      .execute();
    const lengths = rows.map((r) => r.requests);
    if (this.histories.size > 10_000) this.histories.clear();
    this.histories.set(apiKeyId, { at: now, lengths });
    return lengths;
  }

  async deleteExpired(): Promise<number> {
    const result = await this.store.db
      .deleteFrom('compression_conversations')
      .where('expires_at', '<=', this.now())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function fromRow(row: CompressionConversationsTable): StoredConversation {
  return {
    maskBefore: row.mask_before,
    rewriteAt: row.rewrite_at,
    requests: row.requests,
    lastRequestAt: row.last_request_at,
    lastCacheRead: row.last_cache_read,
    lastCacheWrite: row.last_cache_write,
    savedUnits: row.saved_units,
  };
}
