import type { ProviderKeyRepository } from '../store/provider-keys.js';
import type { AllowListRepository } from '../store/organization-allow-lists.js';

/** What an organization's requests are routed with: its own provider keys and its allow-lists. */
export interface OrganizationRouting {
  /** The organization's own keys by provider id: used before the operator's (BYOK). */
  providerKeys: ReadonlyMap<string, string>;
  /** null: every model. */
  allowedModels: ReadonlySet<string> | null;
  /** null: every provider. */
  allowedProviders: ReadonlySet<string> | null;
}

const NOTHING_SET: OrganizationRouting = Object.freeze({
  providerKeys: new Map<string, string>(),
  allowedModels: null,
  allowedProviders: null,
});

interface CacheEntry {
  routing: OrganizationRouting;
  fetchedAt: number;
}

const MAX_CACHED_ORGANIZATIONS = 100_000;

/**
 * Each organization's provider keys and allow-lists, read on the request path through a short
 * cache (like the key and tool-setting caches): at most one read per organization per `ttlMs`
 * (default 1 s). `invalidate` (called by this instance's console after any change, once the store
 * has it) drops the organization's entry and makes every read under way read again, so once a
 * DELETE has returned no request admitted on this instance uses the removed key; other instances
 * stop within `ttlMs` (docs/byok.md). When the store cannot be read, an entry this instance did not
 * invalidate is used past its time rather than failing the request.
 */
export class OrganizationAccess {
  private readonly cache = new Map<string, CacheEntry>();
  /** Bumped by every invalidation: a read that started before one is not cached. */
  private generation = 0;

  constructor(
    readonly providerKeys: ProviderKeyRepository,
    readonly allowLists: AllowListRepository,
    private readonly options: {
      ttlMs?: number;
      now?: () => number;
      onUnreadableKey?: (organizationId: string, providerId: string, error: Error) => void;
    } = {},
  ) {}

  async forOrganization(organizationId: string): Promise<OrganizationRouting> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.cache.get(organizationId);
    if (cached && now - cached.fetchedAt < (this.options.ttlMs ?? 1_000)) return cached.routing;
    let routing: OrganizationRouting;
    let generation: number;
    let attempts = 0;
    do {
      generation = this.generation;
      try {
        routing = await this.read(organizationId);
      } catch (error) {
        if (cached && this.cache.get(organizationId) === cached) return cached.routing;
        throw error;
      }
      // A change landed while reading: what was read may predate it, so it is read again.
    } while (generation !== this.generation && ++attempts < 5);
    if (generation === this.generation) {
      if (this.cache.size >= MAX_CACHED_ORGANIZATIONS) this.cache.clear();
      this.cache.set(organizationId, { routing, fetchedAt: now });
    }
    return routing;
  }

  /** After a change to the organization's keys or lists: the next request reads them again. */
  invalidate(organizationId: string): void {
    this.generation++;
    this.cache.delete(organizationId);
  }

  private async read(organizationId: string): Promise<OrganizationRouting> {
    const [keys, lists] = await Promise.all([
      this.providerKeys.secretsOf(organizationId, (providerId, error) =>
        this.options.onUnreadableKey?.(organizationId, providerId, error),
      ),
      this.allowLists.read(organizationId),
    ]);
    if (keys.size === 0 && lists.models === null && lists.providers === null) return NOTHING_SET;
    return {
      providerKeys: keys,
      allowedModels: lists.models && new Set(lists.models),
      allowedProviders: lists.providers && new Set(lists.providers),
    };
  }
}
