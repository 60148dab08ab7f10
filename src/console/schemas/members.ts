import { Type, type Static } from '@sinclair/typebox';

/** PostgreSQL text cannot hold U+0000: refused here as a 400 instead of failing in the database as a 500. */
const NO_NUL = '^[^\\u0000]*$';
const Id = Type.String({ minLength: 1, maxLength: 100, pattern: NO_NUL });
const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
const PersonName = Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL });
export const Email = Type.String({ minLength: 3, maxLength: 320, pattern: '^[^@\\s\\u0000]+@[^@\\s\\u0000]+$' });

/** How long an invite link stays valid unless the request says otherwise. */
export const DEFAULT_INVITE_DAYS = 7;
/** A group's `settings` JSON, serialised, may hold at most this many bytes (it is read on every use). */
export const MAX_GROUP_SETTINGS_BYTES = 8_192;

export const MemberParamsSchema = Type.Object({ orgId: Id, memberId: Id });
export const GroupParamsSchema = Type.Object({ orgId: Id, groupId: Id });

export const InviteMemberBodySchema = Type.Object(
  {
    email: Email,
    name: Type.Optional(PersonName),
    role: Type.Optional(Role),
    group_id: Type.Optional(Type.Union([Id, Type.Null()])),
    expires_in_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 30, description: `Default ${DEFAULT_INVITE_DAYS}.` }),
    ),
  },
  { additionalProperties: false },
);
export type InviteMemberBody = Static<typeof InviteMemberBodySchema>;

export const UpdateMemberBodySchema = Type.Object(
  {
    role: Type.Optional(Role),
    name: Type.Optional(Type.Union([PersonName, Type.Null()])),
    group_id: Type.Optional(
      Type.Union([Id, Type.Null()], { description: 'The group the member belongs to; null: none.' }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateMemberBody = Static<typeof UpdateMemberBodySchema>;

export const AcceptInviteBodySchema = Type.Object(
  { token: Type.String({ minLength: 10, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' }) },
  { additionalProperties: false },
);
export type AcceptInviteBody = Static<typeof AcceptInviteBodySchema>;

const Settings = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
  description: `Shared settings of the group's members (a JSON object of at most ${MAX_GROUP_SETTINGS_BYTES} bytes).`,
  maxProperties: 100,
});

export const CreateGroupBodySchema = Type.Object(
  { name: PersonName, settings: Type.Optional(Settings) },
  { additionalProperties: false },
);
export type CreateGroupBody = Static<typeof CreateGroupBodySchema>;

export const UpdateGroupBodySchema = Type.Object(
  { name: Type.Optional(PersonName), settings: Type.Optional(Settings) },
  { additionalProperties: false },
);
export type UpdateGroupBody = Static<typeof UpdateGroupBodySchema>;
