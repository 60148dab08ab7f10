import { Type, type Static } from '@sinclair/typebox';

/** The longest a share link may live: a month, in hours. */
export const MAX_SHARE_HOURS = 720;
export const DEFAULT_SHARE_HOURS = 168;

export const CreateShareLinkSchema = Type.Object(
  {
    expires_in_hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SHARE_HOURS,
        description: `Hours until the link stops opening (1–${MAX_SHARE_HOURS}; default ${DEFAULT_SHARE_HOURS}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateShareLink = Static<typeof CreateShareLinkSchema>;

export const ShareLinkParamsSchema = Type.Object({
  orgId: Type.String({ maxLength: 100 }),
  linkId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const ShareLinkSchema = Type.Object({
  object: Type.Literal('session_share_link'),
  id: Type.String(),
  session_id: Type.String(),
  created_at: Type.String(),
  expires_at: Type.String(),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
});

export const CreatedShareLinkSchema = Type.Object({
  ...ShareLinkSchema.properties,
  token: Type.String({ description: 'The secret of the link: shown this once, stored only as its digest.' }),
  path: Type.String({
    description:
      "The web console's page for the link, relative to the console's origin; the token rides in the fragment, which browsers never send.",
  }),
});

export const ShareLinkListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ShareLinkSchema),
});
