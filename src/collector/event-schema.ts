import { Type, type Static } from '@sinclair/typebox';

/**
 * The collected-event body (spec 2.12). Known members are typed and a wrong type is a 400 naming
 * it; every object tolerates members it does not define (real SDKs send `components`, `consent`,
 * `from`, `context.session`, …), which are stored as they came (build-events.ts). The body limit
 * and the per-event size limit bound what those members can add.
 */
const Text = (max = 2048) => Type.String({ maxLength: max });
const Properties = Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), { maxProperties: 200 });
const Keywords = Type.Array(Text(256), { maxItems: 100 });

export const PageDataSchema = Type.Object({
  name: Type.Optional(Text(512)),
  category: Type.Optional(Text(512)),
  title: Type.Optional(Text(2048)),
  url: Type.Optional(Text(8192)),
  path: Type.Optional(Text(8192)),
  search: Type.Optional(Text(8192)),
  referrer: Type.Optional(Text(8192)),
  keywords: Type.Optional(Keywords),
  properties: Type.Optional(Properties),
});

export const TrackDataSchema = Type.Object({
  name: Text(512),
  properties: Type.Optional(Properties),
});

export const UserDataSchema = Type.Object({
  user_id: Type.Optional(Text(512)),
  anonymous_id: Type.Optional(Text(512)),
  properties: Type.Optional(Properties),
});

const ClientSchema = Type.Object({
  timezone: Type.Optional(Text(100)),
  screen_width: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  screen_height: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  screen_density: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  user_agent_architecture: Type.Optional(Text(100)),
  user_agent_bitness: Type.Optional(Text(20)),
  os_version: Type.Optional(Text(100)),
  user_agent_full_version_list: Type.Optional(Text(2048)),
});

const CampaignSchema = Type.Object({
  name: Type.Optional(Text(512)),
  source: Type.Optional(Text(512)),
  medium: Type.Optional(Text(512)),
  term: Type.Optional(Text(512)),
  content: Type.Optional(Text(512)),
  creative_format: Type.Optional(Text(512)),
  marketing_tactic: Type.Optional(Text(512)),
});

export const ContextSchema = Type.Object({
  client: Type.Optional(ClientSchema),
  campaign: Type.Optional(CampaignSchema),
  page: Type.Optional(PageDataSchema),
  user: Type.Optional(UserDataSchema),
});

/** A client-chosen event id makes a retried POST idempotent: the same id is stored once per project. */
export const EVENT_ID_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';

export const EventSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('page'), Type.Literal('track'), Type.Literal('user')]),
    id: Type.Optional(Type.String({ pattern: EVENT_ID_PATTERN })),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    context: Type.Optional(ContextSchema),
  },
  { additionalProperties: true },
);

/** The members each level defines; any other member is kept as the client sent it. */
export const KNOWN_BODY_MEMBERS: ReadonlySet<string> = new Set(['data_collection']);
export const KNOWN_COLLECTION_MEMBERS: ReadonlySet<string> = new Set(['events', 'context']);
export const KNOWN_EVENT_MEMBERS: ReadonlySet<string> = new Set(['type', 'id', 'data', 'context']);

export const DEFAULT_MAX_EVENTS_PER_REQUEST = 100;

/** The body schema with at most `maxEvents` events (GATEWAY_COLLECTOR_MAX_EVENTS). */
export function collectBodySchema(maxEvents = DEFAULT_MAX_EVENTS_PER_REQUEST) {
  return Type.Object(
    {
      data_collection: Type.Object(
        {
          events: Type.Array(EventSchema, { minItems: 1, maxItems: maxEvents }),
          context: Type.Optional(ContextSchema),
        },
        { additionalProperties: true },
      ),
    },
    { additionalProperties: true },
  );
}

export type CollectBody = Static<ReturnType<typeof collectBodySchema>>;
export type IncomingEvent = Static<typeof EventSchema>;
export type EventContext = Static<typeof ContextSchema>;
