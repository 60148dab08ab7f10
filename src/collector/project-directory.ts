import type { ProjectRepository } from '../store/projects.js';
import type { ProjectComponentRepository } from '../store/project-components.js';
import type { ComponentCatalogue } from '../console/components/component-catalogue.js';
import type { StoredEvent } from '../store/collected-events.js';

export interface ResolvedProject {
  id: string;
  organizationId: string;
  /** The active data-collection components that receive an event, by its type (their `event_types` setting). */
  componentIds: Readonly<Record<StoredEvent['type'], readonly string[]>>;
}

const EVENT_TYPES: ReadonlyArray<StoredEvent['type']> = ['page', 'track', 'user'];

/**
 * Host → project (and its active data-collection components), through verified domain claims
 * only (store/project-domains.ts), cached for a short TTL so the
 * collector's hot path does not query the database per request. Changes made through this
 * instance's console invalidate at once; another instance's changes show within the TTL.
 * Unknown hosts are cached too, so a flood of bad hosts costs one query per TTL each.
 */
export class ProjectDirectory {
  private readonly cache = new Map<string, { value: ResolvedProject | null; until: number }>();

  constructor(
    private readonly projects: ProjectRepository,
    private readonly components: ProjectComponentRepository,
    private readonly catalogue: ComponentCatalogue,
    private readonly ttlMs: number,
    /** Serve claims verified only because they were local names in development mode (development only). */
    private readonly options: { servePreverified: boolean } = { servePreverified: true },
  ) {}

  /** The cached answer while it is fresh (null: an unknown host); undefined when `resolve` must ask the database. */
  cached(host: string): ResolvedProject | null | undefined {
    const hit = this.cache.get(host);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }

  async resolve(host: string): Promise<ResolvedProject | null> {
    const now = Date.now();
    const hit = this.cache.get(host);
    if (hit && hit.until > now) return hit.value;
    // Only a verified claim is served: an unverified host is answered like an unknown one.
    const project = await this.projects.findByDomain(host, this.options);
    let value: ResolvedProject | null = null;
    if (project) {
      const active = await this.components.activeForProject(project.id);
      const componentIds: Record<StoredEvent['type'], string[]> = { page: [], track: [], user: [] };
      for (const pc of active) {
        const component = this.catalogue.get(pc.componentId);
        if (!component || component.category !== 'data_collection') continue;
        const types = pc.settings?.event_types;
        for (const type of EVENT_TYPES)
          if (!Array.isArray(types) || types.includes(type)) componentIds[type].push(pc.id);
      }
      value = { id: project.id, organizationId: project.organizationId, componentIds };
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(host, { value, until: now + this.ttlMs });
    return value;
  }

  invalidate(): void {
    this.cache.clear();
  }
}

/** `Shop.Example.com.:443` → `shop.example.com`; `[::1]:8445` → `::1`. */
export function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  const value = hostHeader.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  const host = bracketed ? bracketed[1]! : value.replace(/:\d+$/, '');
  return host.replace(/\.$/, '') || undefined;
}
