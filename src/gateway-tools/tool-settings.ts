import type { Store } from '../store/database.js';
import type { GatewayToolSettingsTable } from '../store/schema.js';

/** One tool's configuration in one organization; a tool with no row is inactive. */
export interface ToolSetting {
  toolId: string;
  active: boolean;
  /** null: every key of the organization may use the tool. */
  activeKeyIds: string[] | null;
  hydrate: boolean;
  hydrateKeyIds: string[];
  updatedAt: number | null;
}

export interface ToolSettingPatch {
  active?: boolean;
  activeKeyIds?: string[] | null;
  hydrate?: boolean;
  hydrateKeyIds?: string[];
}

export function inactiveSetting(toolId: string): ToolSetting {
  return { toolId, active: false, activeKeyIds: null, hydrate: false, hydrateKeyIds: [], updatedAt: null };
}

/** May this key call the tool (explicitly, or by hydration)? */
export function usableBy(setting: ToolSetting, keyId: string): boolean {
  return setting.active && (setting.activeKeyIds === null || setting.activeKeyIds.includes(keyId));
}

/** Is the tool injected into this key's requests that name no gateway_tool_ids? */
export function hydratedFor(setting: ToolSetting, keyId: string): boolean {
  return usableBy(setting, keyId) && (setting.hydrate || setting.hydrateKeyIds.includes(keyId));
}

function toSetting(row: GatewayToolSettingsTable): ToolSetting {
  return {
    toolId: row.tool_id,
    active: row.active === 1,
    activeKeyIds: row.active_key_ids === null ? null : (JSON.parse(row.active_key_ids) as string[]),
    hydrate: row.hydrate === 1,
    hydrateKeyIds: JSON.parse(row.hydrate_key_ids) as string[],
    updatedAt: row.updated_at,
  };
}

interface CacheEntry {
  settings: Map<string, ToolSetting>;
  fetchedAt: number;
}

const MAX_CACHED_ORGANIZATIONS = 100_000;

/**
 * Tool settings per organization, read on the chat hot path through a short cache (like
 * KeyAuthenticator): at most one read per organization per `ttlMs` (default 1 s), so an
 * organization that configured nothing costs a map lookup. A change made through this
 * instance's console evicts the organization at once; other instances see it within `ttlMs`.
 * When the read fails, an expired entry is used rather than failing the request.
 */
export class ToolSettingsRepository {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly store: Store,
    private readonly ttlMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Cached; the map holds only tools that have a row. */
  async forOrganization(organizationId: string): Promise<Map<string, ToolSetting>> {
    const now = this.now();
    const cached = this.cache.get(organizationId);
    if (cached && now - cached.fetchedAt < this.ttlMs) return cached.settings;
    let settings: Map<string, ToolSetting>;
    try {
      settings = await this.read(organizationId);
    } catch (error) {
      // The database is away: requests of keys that need no database (cached, no ceiling) keep
      // being served with the organization's last known settings; the next request reads again.
      if (cached) return cached.settings;
      throw error;
    }
    if (this.cache.size >= MAX_CACHED_ORGANIZATIONS) this.cache.clear();
    this.cache.set(organizationId, { settings, fetchedAt: now });
    return settings;
  }

  /** Uncached, for the console. */
  async read(organizationId: string): Promise<Map<string, ToolSetting>> {
    const rows = await this.store.db
      .selectFrom('gateway_tool_settings')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .execute();
    return new Map(rows.map((row) => [row.tool_id, toSetting(row)]));
  }

  /** Applies the patch over the current setting (inactive when none) and returns the result. */
  async update(organizationId: string, toolId: string, patch: ToolSettingPatch): Promise<ToolSetting> {
    const setting = await this.store.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('gateway_tool_settings')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('tool_id', '=', toolId)
        .executeTakeFirst();
      const current = row ? toSetting(row) : inactiveSetting(toolId);
      const next: ToolSetting = {
        toolId,
        active: patch.active ?? current.active,
        activeKeyIds: patch.activeKeyIds !== undefined ? patch.activeKeyIds : current.activeKeyIds,
        hydrate: patch.hydrate ?? current.hydrate,
        hydrateKeyIds: patch.hydrateKeyIds ?? current.hydrateKeyIds,
        updatedAt: this.now(),
      };
      const values = {
        active: next.active ? 1 : 0,
        active_key_ids: next.activeKeyIds === null ? null : JSON.stringify(next.activeKeyIds),
        hydrate: next.hydrate ? 1 : 0,
        hydrate_key_ids: JSON.stringify(next.hydrateKeyIds),
        updated_at: next.updatedAt!,
      };
      await trx
        .insertInto('gateway_tool_settings')
        .values({ organization_id: organizationId, tool_id: toolId, ...values })
        .onConflict((oc) => oc.columns(['organization_id', 'tool_id']).doUpdateSet(values))
        .execute();
      return next;
    });
    this.forget(organizationId);
    return setting;
  }

  forget(organizationId: string): void {
    this.cache.delete(organizationId);
  }
}
