import { randomBytes } from 'node:crypto';
import type { Store } from '../store/database.js';
import type { ToolCall } from '../gateway/schemas/chat-request.js';

/** How long a `gateway_pending_id` can be sent back. */
export const PENDING_TTL_MS = 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60_000;

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
 * Deferred gateway tool calls. An id is valid for PENDING_TTL_MS and only for the organization
 * and key that created it; it may be sent back any number of times until then (a client that
 * retries a failed request needs it again). Expired rows are deleted lazily, at most once a
 * minute per process, when a new operation is saved.
 */
export class PendingOperationRepository {
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
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
      expiresAt: now + PENDING_TTL_MS,
      ...input,
    };
    await this.store.db
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
