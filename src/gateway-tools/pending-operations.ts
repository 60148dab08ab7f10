import { randomBytes } from 'node:crypto';
import type { Store } from '../store/database.js';
import type { ToolCall } from '../canonical/chat-request.js';

/** How long a `gateway_pending_id` can be sent back, by default (GATEWAY_PENDING_TTL_SECONDS). */
export const PENDING_TTL_MS = 60 * 60 * 1000;
/** Live ids kept per key, by default (GATEWAY_PENDING_MAX_PER_KEY). */
export const PENDING_MAX_PER_KEY = 1_000;
const SWEEP_EVERY_MS = 60_000;

export interface PendingLimits {
  ttlMs: number;
  maxPerKey: number;
}

export interface GatewayToolResult {
  tool_call_id: string;
  name: string;
  content: string;
}

export interface PendingOperation {
  id: string;
  organizationId: string;
  apiKeyId: string;
  createdAt: number;
  expiresAt: number;
  /** Every call of the model's turn, in its order: the gateway's and the client's. */
  toolCalls: ToolCall[];
  gatewayResults: GatewayToolResult[];
}

/** `gwp_` + 24 random bytes: unguessable, and bound to its organization and key anyway. */
export function newPendingId(): string {
  return `gwp_${randomBytes(24).toString('base64url')}`;
}

/**
 * Deferred gateway tool calls. An id is valid for `ttlMs` and only for the organization and key
 * that created it; it may be sent back any number of times until then (a client that retries a
 * failed request needs it again). A key holds at most `maxPerKey` live ids: each new one deletes
 * that key's oldest beyond the cap, so a key that defers turns in a loop keeps a bounded number
 * of rows (only its own ids are evicted, and only the oldest, which clients no longer send).
 * Racing instances can each insert before either trims: the bound is `maxPerKey` plus the
 * operations being created at that moment. Expired rows are deleted lazily, at most once a
 * minute per process, when a new operation is saved.
 */
export class PendingOperationRepository {
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    private readonly limits: PendingLimits = { ttlMs: PENDING_TTL_MS, maxPerKey: PENDING_MAX_PER_KEY },
  ) {}

  async create(input: {
    organizationId: string;
    apiKeyId: string;
    toolCalls: ToolCall[];
    gatewayResults: GatewayToolResult[];
  }): Promise<PendingOperation> {
    const now = this.now();
    const operation: PendingOperation = {
      id: newPendingId(),
      createdAt: now,
      expiresAt: now + this.limits.ttlMs,
      ...input,
    };
    await this.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('gateway_pending_operations')
        .values({
          id: operation.id,
          organization_id: operation.organizationId,
          api_key_id: operation.apiKeyId,
          created_at: operation.createdAt,
          expires_at: operation.expiresAt,
          tool_calls: JSON.stringify(operation.toolCalls),
          gateway_results: JSON.stringify(operation.gatewayResults),
        })
        .execute();
      // The key's newest row beyond the cap, if any: it and everything older goes.
      const firstEvicted = await trx
        .selectFrom('gateway_pending_operations')
        .select(['created_at', 'id'])
        .where('api_key_id', '=', operation.apiKeyId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .offset(this.limits.maxPerKey)
        .executeTakeFirst();
      if (!firstEvicted) return;
      await trx
        .deleteFrom('gateway_pending_operations')
        .where('api_key_id', '=', operation.apiKeyId)
        .where((eb) =>
          eb.or([
            eb('created_at', '<', firstEvicted.created_at),
            eb.and([eb('created_at', '=', firstEvicted.created_at), eb('id', '<=', firstEvicted.id)]),
          ]),
        )
        .execute();
    });
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.deleteExpired().catch(() => undefined);
    }
    return operation;
  }

  /** The operation, unless it is unknown, expired, or belongs to another organization or key. */
  async find(id: string, organizationId: string, apiKeyId: string): Promise<PendingOperation | undefined> {
    const row = await this.store.db
      .selectFrom('gateway_pending_operations')
      .selectAll()
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .where('api_key_id', '=', apiKeyId)
      .where('expires_at', '>', this.now())
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      organizationId: row.organization_id,
      apiKeyId: row.api_key_id,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      toolCalls: JSON.parse(row.tool_calls) as ToolCall[],
      gatewayResults: JSON.parse(row.gateway_results) as GatewayToolResult[],
    };
  }

  async deleteExpired(): Promise<number> {
    const result = await this.store.db
      .deleteFrom('gateway_pending_operations')
      .where('expires_at', '<=', this.now())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
