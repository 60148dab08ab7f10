import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { ApiKeysTable } from './schema.js';
import { GATEWAY_KEY_PREFIX, digestSecret, generateSecret } from '../secrets/secret-codec.js';
import type { Keyring } from '../secrets/keyring.js';

export type ApiKeyRow = ApiKeysTable;

/** The key as the rest of the code sees it: decoded columns, never the secret. */
export interface ApiKey {
  id: string;
  organizationId: string;
  name: string;
  type: 'api' | 'coding_agent';
  codingAssistant: string | null;
  models: string[];
  maxUsageUsd: number | null;
  active: boolean;
  debugMode: boolean;
  compression: boolean;
  /** The gateway manages prompt caching for this key's requests (on unless turned off). */
  cacheBreakpoints: boolean;
  outputBrevity: boolean;
  /** A new conversation of this key may drop tool groups the key never uses (on unless turned off). */
  toolSurface: boolean;
  email: string | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  /** The member who owns the key (migration 026); null: the organization's own key. */
  memberId: string | null;
}

export interface NewApiKey {
  organizationId: string;
  name: string;
  type: 'api' | 'coding_agent';
  codingAssistant: string | null;
  models: string[];
  maxUsageUsd: number | null;
  expiresInDays: number | null;
  email: string | null;
  debugMode: boolean;
  compression: boolean;
  cacheBreakpoints?: boolean;
  outputBrevity?: boolean;
  toolSurface?: boolean;
}

export interface ApiKeyPatch {
  name?: string;
  active?: boolean;
  models?: string[];
  maxUsageUsd?: number | null;
  debugMode?: boolean;
  compression?: boolean;
  cacheBreakpoints?: boolean;
  outputBrevity?: boolean;
  toolSurface?: boolean;
  type?: 'api' | 'coding_agent';
  codingAssistant?: string | null;
  /** ms; null: never expires. */
  expiresAt?: number | null;
}

const DAY_MS = 24 * 3600 * 1000;

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    type: row.type,
    codingAssistant: row.coding_assistant,
    models: JSON.parse(row.models) as string[],
    maxUsageUsd: row.max_usage_usd,
    active: row.active === 1,
    debugMode: row.debug_mode === 1,
    compression: row.compression === 1,
    cacheBreakpoints: row.cache_breakpoints !== 0,
    outputBrevity: row.output_brevity === 1,
    toolSurface: row.tool_surface !== 0,
    email: row.email,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    memberId: row.member_id ?? null,
  };
}

/** The AES-GCM associated data binds a ciphertext to its key id, so rows cannot swap secrets. */
export const sealContext = (keyId: string) => `api_key:${keyId}`;

export class ApiKeyRepository {
  constructor(
    private readonly store: Store,
    private readonly keyring: Keyring,
  ) {}

  async create(input: NewApiKey): Promise<{ apiKey: ApiKey; secret: string }> {
    const secret = generateSecret(GATEWAY_KEY_PREFIX);
    const now = Date.now();
    const id = randomUUID();
    const row: ApiKeyRow = {
      id,
      organization_id: input.organizationId,
      name: input.name,
      type: input.type,
      coding_assistant: input.codingAssistant,
      models: JSON.stringify(input.models),
      max_usage_usd: input.maxUsageUsd,
      active: 1,
      debug_mode: input.debugMode ? 1 : 0,
      compression: input.compression ? 1 : 0,
      cache_breakpoints: input.cacheBreakpoints === false ? 0 : 1,
      output_brevity: input.outputBrevity ? 1 : 0,
      tool_surface: input.toolSurface === false ? 0 : 1,
      email: input.email,
      key_digest: digestSecret(secret),
      key_ciphertext: this.keyring.seal(secret, sealContext(id)),
      created_at: now,
      updated_at: now,
      expires_at: input.expiresInDays === null ? null : now + input.expiresInDays * DAY_MS,
      last_used_at: null,
      deleted_at: null,
    };
    await this.store.db.insertInto('api_keys').values(row).execute();
    return { apiKey: toApiKey(row), secret };
  }

  async list(organizationId: string): Promise<ApiKey[]> {
    const rows = await this.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toApiKey);
  }

  async get(organizationId: string, id: string): Promise<ApiKey | undefined> {
    const row = await this.liveRow(organizationId, id);
    return row && toApiKey(row);
  }

  async update(organizationId: string, id: string, patch: ApiKeyPatch): Promise<ApiKey | undefined> {
    const changes: Partial<ApiKeyRow> = { updated_at: Date.now() };
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.active !== undefined) changes.active = patch.active ? 1 : 0;
    if (patch.models !== undefined) changes.models = JSON.stringify(patch.models);
    if (patch.maxUsageUsd !== undefined) changes.max_usage_usd = patch.maxUsageUsd;
    if (patch.debugMode !== undefined) changes.debug_mode = patch.debugMode ? 1 : 0;
    if (patch.compression !== undefined) changes.compression = patch.compression ? 1 : 0;
    if (patch.cacheBreakpoints !== undefined) changes.cache_breakpoints = patch.cacheBreakpoints ? 1 : 0;
    if (patch.outputBrevity !== undefined) changes.output_brevity = patch.outputBrevity ? 1 : 0;
    if (patch.toolSurface !== undefined) changes.tool_surface = patch.toolSurface ? 1 : 0;
    if (patch.type !== undefined) changes.type = patch.type;
    if (patch.codingAssistant !== undefined) changes.coding_assistant = patch.codingAssistant;
    if (patch.expiresAt !== undefined) changes.expires_at = patch.expiresAt;
    const result = await this.store.db
      .updateTable('api_keys')
      .set(changes)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    return this.get(organizationId, id);
  }

  /** Soft delete: the row stays for usage history, the secret is destroyed and lookups stop matching. */
  async delete(organizationId: string, id: string): Promise<boolean> {
    const result = await this.store.db
      .updateTable('api_keys')
      .set({ deleted_at: Date.now(), updated_at: Date.now(), key_ciphertext: null, active: 0 })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async reveal(organizationId: string, id: string): Promise<{ apiKey: ApiKey; secret: string } | undefined> {
    const row = await this.liveRow(organizationId, id);
    if (!row || !row.key_ciphertext) return undefined;
    return { apiKey: toApiKey(row), secret: this.keyring.open(row.key_ciphertext, sealContext(row.id)) };
  }

  /**
   * Whether this repository's master key opens the stored keys (checked on one of them; undefined
   * when none is sealed): after a restore, a different key reveals nothing.
   */
  async masterKeyOpensKeys(): Promise<boolean | undefined> {
    const row = await this.store.db
      .selectFrom('api_keys')
      .select(['id', 'key_ciphertext'])
      .where('key_ciphertext', 'is not', null)
      .limit(1)
      .executeTakeFirst();
    if (!row?.key_ciphertext) return undefined;
    try {
      this.keyring.open(row.key_ciphertext, sealContext(row.id));
      return true;
    } catch {
      return false;
    }
  }

  /** For gateway authentication. Deleted keys are never returned. */
  async findByDigest(digest: string): Promise<(ApiKey & { digest: string }) | undefined> {
    const row = await this.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_digest', '=', digest)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row && { ...toApiKey(row), digest: row.key_digest };
  }

  /** Batched from memory (see gateway/auth/last-used.ts); a key is never moved backwards in time. */
  async recordLastUsed(entries: Array<{ id: string; at: number }>): Promise<void> {
    for (const { id, at } of entries) {
      await this.store.db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    }
  }

  private liveRow(organizationId: string, id: string): Promise<ApiKeyRow | undefined> {
    return this.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }
}
