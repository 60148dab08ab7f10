import { Type } from '@sinclair/typebox';

/**
 * The public component catalogue, shipped with the gateway (spec 2.11). Each version carries
 * the JSON schema its project-component `settings` must satisfy; the schemas are written with
 * TypeBox so the same object is both served as plain JSON schema and checked with Value.Check.
 * The two built-in data-collection components are implemented in src/collector/delivery/.
 */
export const COMPONENT_CATEGORIES = [
  'data_collection',
  'edge_function',
  'js_gateway',
  'security',
  'consent_management',
  'identity',
  'stitching',
] as const;

export const COMPONENT_SUBCATEGORIES = [
  'analytics',
  'warehouse',
  'attribution',
  'conversion_api',
  'wasm_function',
  'server_side_tagging',
  'microservice',
  'kv_store',
  'bot_protection',
  'rate_limiting',
  'anti_fraud',
  'consent_mapping',
  'cmp',
  'native_cookies',
  'unique_id',
  'ab_testing',
  'web_performance',
] as const;

export type ComponentCategory = (typeof COMPONENT_CATEGORIES)[number];
export type ComponentSubcategory = (typeof COMPONENT_SUBCATEGORIES)[number];

/** The organization slug that owns the built-in public components. */
export const BUILT_IN_ORG_SLUG = 'gateway';

const EventTypes = Type.Array(Type.Union([Type.Literal('page'), Type.Literal('track'), Type.Literal('user')]), {
  minItems: 1,
  uniqueItems: true,
  description: 'Only these event types are delivered; all types when absent.',
});

export interface CatalogueVersion {
  version: string;
  released_at: string;
  changelog: string;
  settings_schema: Record<string, unknown>;
}

export interface CatalogueEntry {
  id: string;
  org_slug: string;
  slug: string;
  name: string;
  avatar_url: string;
  category: ComponentCategory;
  subcategory: ComponentSubcategory;
  description: string;
  repo_link: string;
  documentation_link: string;
  created_at: string;
  updated_at: string;
  is_public: boolean;
  is_archived: boolean;
  /** Oldest first; the last one is `latest_version`. */
  versions: CatalogueVersion[];
  /** Which built-in delivery implementation runs it. */
  runtime: 'webhook' | 'warehouse';
}

export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    id: '5b0f3f7e-3c1d-4a57-9b8e-0d7f2c6a1e01',
    org_slug: BUILT_IN_ORG_SLUG,
    slug: 'warehouse',
    name: 'Warehouse',
    avatar_url: '',
    category: 'data_collection',
    subcategory: 'warehouse',
    description: "Keeps collected events in the gateway's own database; read them with GET /v1/projects/{id}/events.",
    repo_link: '',
    documentation_link: 'docs/console-api.md#warehouse-component',
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    is_public: true,
    is_archived: false,
    runtime: 'warehouse',
    versions: [
      {
        version: '1.0.0',
        released_at: '2025-01-01T00:00:00.000Z',
        changelog: 'First version.',
        settings_schema: Type.Object({ event_types: Type.Optional(EventTypes) }, { additionalProperties: false }),
      },
    ],
  },
  {
    id: '5b0f3f7e-3c1d-4a57-9b8e-0d7f2c6a1e02',
    org_slug: BUILT_IN_ORG_SLUG,
    slug: 'webhook',
    name: 'Webhook',
    avatar_url: '',
    category: 'data_collection',
    subcategory: 'server_side_tagging',
    description:
      'Posts batches of collected events as JSON to an HTTPS endpoint; every event carries its id so the receiver can de-duplicate.',
    repo_link: '',
    documentation_link: 'docs/console-api.md#webhook-component',
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    is_public: true,
    is_archived: false,
    runtime: 'webhook',
    versions: [
      {
        version: '1.0.0',
        released_at: '2025-01-01T00:00:00.000Z',
        changelog: 'First version.',
        settings_schema: Type.Object(
          {
            url: Type.String({
              pattern: '^https?://[^\\s]+$',
              maxLength: 2048,
              description: 'HTTPS endpoint receiving POSTed event batches.',
            }),
            batch_size: Type.Optional(
              Type.Integer({ minimum: 1, maximum: 500, description: 'Events per request (default 100).' }),
            ),
            event_types: Type.Optional(EventTypes),
          },
          { additionalProperties: false },
        ),
      },
    ],
  },
];
