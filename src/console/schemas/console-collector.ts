import { Type, type Static } from '@sinclair/typebox';
import { COMPONENT_CATEGORIES, COMPONENT_SUBCATEGORIES } from '../components/catalogue.js';
import { PagingQuerySchema } from './paging.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });

// ---- API tokens -------------------------------------------------------------------------
export const CreateApiTokenBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    permission: Type.Union([Type.Literal('read'), Type.Literal('write')]),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  },
  { additionalProperties: false },
);
export type CreateApiTokenBody = Static<typeof CreateApiTokenBodySchema>;
export const IdParamsSchema = Type.Object({ id: Id });

// ---- Projects ---------------------------------------------------------------------------
/** Lowercase host names (labels of letters, digits and dashes); no port, no trailing dot. */
export const DOMAIN_PATTERN =
  '^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$';
const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });
const Domains = Type.Array(Type.String({ pattern: DOMAIN_PATTERN, maxLength: 253 }), {
  maxItems: 20,
  uniqueItems: true,
});

export const CreateProjectBodySchema = Type.Object(
  { slug: Slug, name: Type.String({ minLength: 1, maxLength: 200 }), domains: Type.Optional(Domains) },
  { additionalProperties: false },
);
export type CreateProjectBody = Static<typeof CreateProjectBodySchema>;
export const UpdateProjectBodySchema = Type.Object(
  {
    slug: Type.Optional(Slug),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    domains: Type.Optional(Domains),
  },
  { additionalProperties: false },
);
export type UpdateProjectBody = Static<typeof UpdateProjectBodySchema>;

// ---- Project domains (ownership checks) ------------------------------------------------
export const DomainParamsSchema = Type.Object({
  id: Id,
  domain: Type.String({ pattern: DOMAIN_PATTERN, maxLength: 253 }),
});
export type DomainParams = Static<typeof DomainParamsSchema>;
/** `method` picks one check; without it both run and either proves control. */
export const VerifyDomainBodySchema = Type.Object(
  { method: Type.Optional(Type.Union([Type.Literal('dns'), Type.Literal('http')])) },
  { additionalProperties: false },
);
export type VerifyDomainBody = Static<typeof VerifyDomainBodySchema>;

// ---- Proxy settings (2.10) --------------------------------------------------------------
const ShortText = (max: number) => Type.String({ maxLength: max });
export const BackendSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
    address: Type.String({ minLength: 1, maxLength: 300 }),
    enable_ssl: Type.Optional(Type.Boolean()),
    check_certificate: Type.Optional(ShortText(253)),
    ca_certificate: Type.Optional(ShortText(16_384)),
    sni_hostname: Type.Optional(ShortText(253)),
    default: Type.Optional(Type.Boolean()),
    override_host: Type.Optional(ShortText(253)),
  },
  { additionalProperties: false },
);
const Codes = (pattern: string) => Type.Array(Type.String({ pattern }), { maxItems: 250, uniqueItems: true });
export const RouteSchema = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 512 }),
    regex: Type.Optional(Type.Boolean()),
    backend_name: Type.String({ minLength: 1, maxLength: 100 }),
    rank: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })),
    continent: Type.Optional(Codes('^(AF|AN|AS|EU|NA|OC|SA)$')),
    region: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 250, uniqueItems: true }),
    ),
    country: Type.Optional(Codes('^[A-Z]{2}$')),
  },
  { additionalProperties: false },
);
export const CreateProxySettingsBodySchema = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    is_active: Type.Optional(Type.Boolean()),
    backends: Type.Array(BackendSchema, { minItems: 1, maxItems: 50 }),
    routes: Type.Optional(Type.Array(RouteSchema, { maxItems: 200 })),
  },
  { additionalProperties: false },
);
export type CreateProxySettingsBody = Static<typeof CreateProxySettingsBodySchema>;
export const UpdateProxySettingsBodySchema = Type.Object(
  { description: Type.Optional(Type.String({ maxLength: 1000 })), is_active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type UpdateProxySettingsBody = Static<typeof UpdateProxySettingsBodySchema>;
export const RevisionParamsSchema = Type.Object({ id: Id, revision: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });

// ---- Components (2.11) ------------------------------------------------------------------
export const ComponentListQuerySchema = Type.Composite(
  [
    Type.Object({
      category: Type.Optional(Type.Union(COMPONENT_CATEGORIES.map((c) => Type.Literal(c)))),
      subcategory: Type.Optional(Type.Union(COMPONENT_SUBCATEGORIES.map((c) => Type.Literal(c)))),
    }),
    PagingQuerySchema,
  ],
  { additionalProperties: false },
);
export type ComponentListQuery = Static<typeof ComponentListQuerySchema>;
export const ComponentSlugParamsSchema = Type.Object({
  orgSlug: Type.String({ maxLength: 100 }),
  componentSlug: Type.String({ maxLength: 100 }),
});

const Settings = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);
export const CreateProjectComponentBodySchema = Type.Object(
  {
    component_id: Type.Optional(Id),
    component_slug: Type.Optional(Type.String({ minLength: 3, maxLength: 201 })),
    component_version: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    active: Type.Optional(Type.Boolean()),
    settings: Type.Optional(Settings),
  },
  { additionalProperties: false },
);
export type CreateProjectComponentBody = Static<typeof CreateProjectComponentBodySchema>;
/** The 2.11 update body: the same members, all optional. */
export const UpdateProjectComponentBodySchema = CreateProjectComponentBodySchema;
export type UpdateProjectComponentBody = CreateProjectComponentBody;
export const ProjectComponentParamsSchema = Type.Object({ id: Id, project_component_id: Id });

export const EventListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^(1000|[1-9][0-9]{0,2})$' })),
    starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 600 })),
    last_key: Type.Optional(Type.String({ minLength: 1, maxLength: 600 })),
    project_component_id: Type.Optional(Id),
    type: Type.Optional(Type.Union([Type.Literal('page'), Type.Literal('track'), Type.Literal('user')])),
  },
  { additionalProperties: false },
);
export type EventListQuery = Static<typeof EventListQuerySchema>;
