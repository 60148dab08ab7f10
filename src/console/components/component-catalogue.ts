import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import {
  CATALOGUE,
  type CatalogueEntry,
  type CatalogueVersion,
  type ComponentCategory,
  type ComponentSubcategory,
} from './catalogue.js';

export type Component = CatalogueEntry;

/** The spec 2.11 component object. `versions` maps a version string to its release and schema. */
export function presentComponent(component: Component) {
  return {
    object: 'component' as const,
    id: component.id,
    name: component.name,
    slug: component.slug,
    avatar_url: component.avatar_url,
    category: component.category,
    subcategory: component.subcategory,
    description: component.description,
    latest_version: latestVersion(component).version,
    repo_link: component.repo_link,
    documentation_link: component.documentation_link,
    versions: Object.fromEntries(
      component.versions.map((v) => [
        v.version,
        {
          version: v.version,
          released_at: v.released_at,
          changelog: v.changelog,
          settings_schema: toJson(v.settings_schema),
        },
      ]),
    ),
    created_at: component.created_at,
    updated_at: component.updated_at,
    is_public: component.is_public,
    is_archived: component.is_archived,
  };
}

/** TypeBox schemas carry symbol keys; a JSON round trip leaves the plain JSON schema. */
const toJson = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

export function latestVersion(component: Component): CatalogueVersion {
  return component.versions[component.versions.length - 1]!;
}

export function fullSlug(component: Component): string {
  return `${component.org_slug}/${component.slug}`;
}

/** Read-only and ordered by `<org_slug>/<slug>`, so paging with a `last_key` is stable. */
export class ComponentCatalogue {
  private readonly ordered: Component[];
  private readonly byId = new Map<string, Component>();
  private readonly bySlug = new Map<string, Component>();

  constructor(entries: readonly Component[] = CATALOGUE) {
    this.ordered = [...entries].sort((a, b) => (fullSlug(a) < fullSlug(b) ? -1 : 1));
    for (const entry of this.ordered) {
      this.byId.set(entry.id, entry);
      this.bySlug.set(fullSlug(entry), entry);
    }
  }

  get(id: string): Component | undefined {
    return this.byId.get(id);
  }

  getBySlug(orgSlug: string, slug: string): Component | undefined {
    return this.bySlug.get(`${orgSlug}/${slug}`);
  }

  /** `component_slug` of a project component: `<org_slug>/<component_slug>`. */
  getByFullSlug(value: string): Component | undefined {
    return this.bySlug.get(value);
  }

  list(filter: {
    category?: ComponentCategory;
    subcategory?: ComponentSubcategory;
    startingAfter?: string;
    limit: number;
  }) {
    const visible = this.ordered.filter(
      (c) =>
        c.is_public &&
        (!filter.category || c.category === filter.category) &&
        (!filter.subcategory || c.subcategory === filter.subcategory),
    );
    let start = 0;
    if (filter.startingAfter !== undefined) {
      const index = visible.findIndex((c) => c.id === filter.startingAfter);
      if (index < 0) return undefined;
      start = index + 1;
    }
    const page = visible.slice(start, start + filter.limit);
    return { data: page, hasMore: start + filter.limit < visible.length };
  }
}

export function findVersion(component: Component, version: string): CatalogueVersion | undefined {
  return component.versions.find((v) => v.version === version);
}

/** The first problem with `settings` against the version's schema, as `{path, message}`. */
export function checkSettings(
  version: CatalogueVersion,
  settings: unknown,
): { path: string; message: string } | undefined {
  const schema = version.settings_schema as unknown as TSchema;
  if (Value.Check(schema, settings)) return undefined;
  const first = Value.Errors(schema, settings).First();
  return { path: first?.path ?? '', message: first?.message ?? 'invalid settings' };
}
