import { Type, type Static } from '@sinclair/typebox';
import { PagingQuerySchema } from './paging.js';

const NO_NUL = '^[^\\u0000]*$';
const Id = Type.String({ maxLength: 100, pattern: NO_NUL });

/** The longest a key captures at once: a day (docs/debug-capture.md, "Turning it on"). */
export const MAX_CAPTURE_MINUTES = 24 * 60;

export const CaptureParamsSchema = Type.Object({ orgId: Id, captureId: Id });

export const DebugCaptureSettingBodySchema = Type.Object(
  {
    duration_minutes: Type.Integer({
      minimum: 1,
      maximum: MAX_CAPTURE_MINUTES,
      description: "Capture the key's requests from now for this many minutes (at most 1,440: a day).",
    }),
  },
  { additionalProperties: false },
);
export type DebugCaptureSettingBody = Static<typeof DebugCaptureSettingBodySchema>;

export const DebugCaptureSettingSchema = Type.Object({
  object: Type.Literal('debug_capture_setting'),
  api_key_id: Type.String(),
  capturing: Type.Boolean({ description: 'Whether a request starting now is captured.' }),
  until: Type.Union([Type.String(), Type.Null()], { description: 'When capture ends; null when off.' }),
});

const { limit, starting_after, last_key } = PagingQuerySchema.properties;
export const CaptureListQuerySchema = Type.Object(
  { limit, starting_after, last_key, api_key_id: Type.Optional(Id) },
  { additionalProperties: false },
);
export type CaptureListQuery = Static<typeof CaptureListQuerySchema>;

export const CaptureDiffQuerySchema = Type.Object(
  {
    attempt: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,2}$',
        description: 'Which upstream attempt (0 = the first); default the last.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Summary = {
  object: Type.Literal('debug_capture'),
  id: Type.String(),
  api_key_id: Type.String(),
  request_id: Type.String(),
  created_at: Type.String(),
  endpoint: Type.String(),
  model: Type.Union([Type.String(), Type.Null()]),
  status_code: Type.Integer(),
  bytes: Type.Integer({ description: 'Stored size of the three parts.' }),
};

export const CaptureSummarySchema = Type.Object(Summary);

export const CaptureListSchema = Type.Object({
  object: Type.Literal('list'),
  url: Type.String(),
  has_more: Type.Boolean(),
  last_key: Type.Union([Type.String(), Type.Null()]),
  data: Type.Array(CaptureSummarySchema),
});

const Part = Type.Object(
  { text: Type.String(), truncated_from_bytes: Type.Optional(Type.Integer()) },
  {
    description: 'A body as text, cut at the part cap with a marker; `truncated_from_bytes`: its whole size when cut.',
  },
);
const Headers = Type.Record(Type.String(), Type.String());

export const CaptureDetailSchema = Type.Object({
  ...Summary,
  received: Type.Object({ headers: Headers, body: Part }),
  upstream: Type.Object({
    attempts: Type.Array(
      Type.Object({
        provider: Type.String(),
        upstream_model: Type.String(),
        url: Type.String(),
        started_at: Type.String(),
        headers: Headers,
        body: Part,
      }),
    ),
    attempts_not_kept: Type.Integer(),
  }),
  answer: Type.Object({
    kind: Type.Union([Type.Literal('json'), Type.Literal('stream'), Type.Literal('none')]),
    status_code: Type.Integer(),
    error_code: Type.Union([Type.String(), Type.Null()]),
    body: Part,
  }),
});

const DiffLine = Type.Union([
  Type.Object({
    op: Type.Union([Type.Literal('same'), Type.Literal('removed'), Type.Literal('added')]),
    text: Type.String(),
  }),
  Type.Object({ op: Type.Literal('skip'), count: Type.Integer() }),
]);
const Status = Type.Union(['unchanged', 'changed', 'added', 'removed'].map((s) => Type.Literal(s)));

export const CaptureDiffSchema = Type.Object({
  object: Type.Literal('debug_capture_diff'),
  id: Type.String(),
  attempt: Type.Union([Type.Integer(), Type.Null()], { description: 'The upstream attempt compared; null: none.' }),
  comparable: Type.Boolean(),
  reason: Type.Union([Type.String(), Type.Null()]),
  item_list: Type.Union([Type.String(), Type.Null()]),
  items: Type.Array(
    Type.Object({
      index: Type.Integer(),
      status: Status,
      role: Type.Union([Type.String(), Type.Null()]),
      received_chars: Type.Integer(),
      sent_chars: Type.Integer(),
      lines: Type.Optional(Type.Array(DiffLine)),
    }),
  ),
  other_members: Type.Array(DiffLine),
  summary: Type.Object({
    unchanged: Type.Integer(),
    changed: Type.Integer(),
    added: Type.Integer(),
    removed: Type.Integer(),
    received_chars: Type.Integer(),
    sent_chars: Type.Integer(),
  }),
});
