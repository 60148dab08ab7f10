import type { ProjectRepository } from '../store/projects.js';
import type { ProjectComponentRepository } from '../store/project-components.js';
import type { ComponentCatalogue } from '../console/components/component-catalogue.js';

export interface DeliveryTarget {
  projectComponentId: string;
  /** null: every event type. */
  eventTypes: Set<string> | null;
}

export interface ResolvedProject {
  id: string;
  organizationId: string;
  targets: DeliveryTarget[];
}

/**
 * Host → project (and its active data-collection components), cached for a short TTL so the
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
  ) {}

  async resolve(host: string): Promise<ResolvedProject | null> {
    const now = Date.now();
    const hit = this.cache.get(host);
    if (hit && hit.until > now) return hit.value;
    const project = await this.projects.findByDomain(host);
    let value: ResolvedProject | null = null;
    if (project) {
      const active = await this.components.activeForProject(project.id);
      const targets: DeliveryTarget[] = [];
      for (const pc of active) {
        const component = this.catalogue.get(pc.componentId);
        if (!component || component.category !== 'data_collection') continue;
        const types = pc.settings?.event_types;
        targets.push({ projectComponentId: pc.id, eventTypes: Array.isArray(types) ? new Set(types as string[]) : null });
      }
      value = { id: project.id, organizationId: project.organizationId, targets };
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
