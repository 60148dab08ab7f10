import { sql } from 'kysely';
import type { Store } from './database.js';
import type { CompressionConversationsTable } from './schema.js';
import type { ConversationState } from '../compress/conversation-state.js';
import {
  aggregateToolGroups,
  boundedGroups,
  type ToolGroupHistory,
  type ToolGroupRecord,
} from '../compress/tool-surface.js';

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
  private readonly histories = new Map<string, { at: number; finished: Promise<Finished> }>();

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
      dropped_tool_groups: groupsJson(state.droppedToolGroups),
      offered_tool_groups: groupsJson(state.offeredToolGroups),
      called_tool_groups: groupsJson(state.calledToolGroups),
      prefix_digest: state.prefixDigest ?? null,
      history_generation: state.generation ?? 0,
    };
    const { api_key_id: _k, conversation_id: _c, created_at: _t, ...update } = row;
    await this.store.db
      .insertInto('compression_conversations')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['api_key_id', 'conversation_id']).doUpdateSet({
          ...update,
          // A boundary never moves back within a history: a racing instance with an older view
          // keeps the newer one. A newer generation (the state started over for another history,
          // src/compress/prefix-digest.ts) replaces it, and an older one never brings it back.
          mask_before: sql<number>`case when excluded.history_generation > compression_conversations.history_generation then excluded.mask_before when excluded.history_generation < compression_conversations.history_generation then compression_conversations.mask_before when excluded.mask_before > compression_conversations.mask_before then excluded.mask_before else compression_conversations.mask_before end`,
          // The digest goes with the boundary it was taken at.
          prefix_digest: sql<
            string | null
          >`case when excluded.history_generation > compression_conversations.history_generation then excluded.prefix_digest when excluded.history_generation < compression_conversations.history_generation then compression_conversations.prefix_digest when excluded.mask_before >= compression_conversations.mask_before then excluded.prefix_digest else compression_conversations.prefix_digest end`,
          history_generation: sql<number>`case when excluded.history_generation > compression_conversations.history_generation then excluded.history_generation else compression_conversations.history_generation end`,
          // The tool surface is decided once: a racing instance never replaces a stored decision.
          dropped_tool_groups: sql<
            string | null
          >`coalesce(compression_conversations.dropped_tool_groups, excluded.dropped_tool_groups)`,
          offered_tool_groups: sql<
            string | null
          >`coalesce(compression_conversations.offered_tool_groups, excluded.offered_tool_groups)`,
          called_tool_groups: sql<
            string | null
          >`coalesce(excluded.called_tool_groups, compression_conversations.called_tool_groups)`,
        }),
      )
      .execute();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.deleteExpired().catch(() => undefined);
    }
  }

  /** Removes a conversation's row (its state was taken over under another id). */
  async forget(apiKeyId: string, conversationId: string): Promise<void> {
    await this.store.db
      .deleteFrom('compression_conversations')
      .where('api_key_id', '=', apiKeyId)
      .where('conversation_id', '=', conversationId)
      .execute();
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
    return (await this.finished(apiKeyId)).lengths;
  }

  /**
   * The tool groups the same finished conversations offered (at their first request) and called,
   * aggregated (src/compress/tool-surface.ts decides from it); read and kept with `history`.
   */
  async toolGroupHistory(apiKeyId: string): Promise<ToolGroupHistory> {
    return (await this.finished(apiKeyId)).tools;
  }

  private finished(apiKeyId: string): Promise<Finished> {
    const now = this.now();
    const cached = this.histories.get(apiKeyId);
    if (cached && now - cached.at < HISTORY_CACHE_MS) return cached.finished;
    const finished = this.readFinished(apiKeyId, now);
    if (this.histories.size > 10_000) this.histories.clear();
    this.histories.set(apiKeyId, { at: now, finished });
    // A failed read is not kept: the next request asks again.
    finished.catch(() => {
      if (this.histories.get(apiKeyId)?.finished === finished) this.histories.delete(apiKeyId);
    });
    return finished;
  }

  private async readFinished(apiKeyId: string, now: number): Promise<Finished> {
    const rows = await this.store.db
      .selectFrom('compression_conversations')
      .select(['requests', 'offered_tool_groups', 'called_tool_groups'])
      .where('api_key_id', '=', apiKeyId)
      .where('last_request_at', '<', now - FINISHED_AFTER_MS)
      .where('expires_at', '>', now)
      .orderBy('last_request_at', 'desc')
      .limit(HISTORY_ROWS)
      .execute();
    const records: ToolGroupRecord[] = rows.map((r) => ({
      offered: parseGroups(r.offered_tool_groups) ?? null,
      called: parseGroups(r.called_tool_groups) ?? null,
    }));
    return { lengths: rows.map((r) => r.requests), tools: aggregateToolGroups(records) };
  }

  async deleteExpired(): Promise<number> {
    const result = await this.store.db
      .deleteFrom('compression_conversations')
      .where('expires_at', '<=', this.now())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

interface Finished {
  lengths: readonly number[];
  tools: ToolGroupHistory;
}

/** A group list as stored: a JSON array of at most 256 names of at most 128 characters; null when absent. */
function groupsJson(groups: readonly string[] | undefined): string | null {
  return groups === undefined ? null : JSON.stringify(boundedGroups(groups));
}

function parseGroups(text: string | null): string[] | undefined {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? boundedGroups(value.filter((g): g is string => typeof g === 'string')) : undefined;
  } catch {
    return undefined;
  }
}

function fromRow(row: CompressionConversationsTable): StoredConversation {
  const state: StoredConversation = {
    maskBefore: row.mask_before,
    rewriteAt: row.rewrite_at,
    requests: row.requests,
    lastRequestAt: row.last_request_at,
    lastCacheRead: row.last_cache_read,
    lastCacheWrite: row.last_cache_write,
    savedUnits: row.saved_units,
  };
  const dropped = parseGroups(row.dropped_tool_groups);
  const offered = parseGroups(row.offered_tool_groups);
  const called = parseGroups(row.called_tool_groups);
  if (dropped) state.droppedToolGroups = dropped;
  if (offered) state.offeredToolGroups = offered;
  if (called) state.calledToolGroups = called;
  if (row.prefix_digest !== null) state.prefixDigest = row.prefix_digest;
  if (row.history_generation) state.generation = row.history_generation;
  return state;
}
