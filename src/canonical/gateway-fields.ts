import { Type } from '@sinclair/typebox';

/**
 * The request members Edgee's SDKs send (edgee-ai/typescript-sdk, python-sdk, rust-sdk, every
 * version to date), accepted on every gateway route next to the gateway's own (spec 2.1) and,
 * like them, consumed and never forwarded (src/providers/shared/gateway-fields.ts):
 *
 * - `compression_model`: besides the four bundles, `agentic` and `customer` (Edgee's generic
 *   modes) turn compression on with the generic rules.
 * - `enable_compression` (deprecated there): true turns compression on with the generic rules
 *   (or the key's bundle); false turns it off for this request, even on a key that has it on.
 * - `enable_claude_compression`, `enable_opencode_compression` (deprecated there): that bundle.
 * - `compression_configuration` `{rate, semantic_preservation_threshold}`, `compression_rate`,
 *   `compression_semantic_preservation_threshold`, `compression_technique`: accepted and
 *   ignored; this gateway's compression is lossless rules, with no rate to aim at.
 */
export const EDGEE_GENERIC_MODELS = ['agentic', 'customer'] as const;

/** Values of `compression_model` / `X-Gateway-Compression-Model`, one per coding-agent client. */
export const COMPRESSION_MODELS = ['claude', 'codex', 'opencode', 'cursor'] as const;

/** The gateway's own request members (spec 2.1), the same on every route; also accepted as headers. */
export const GatewayMembersSchema = {
  gateway_tool_ids: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
  gateway_pending_id: Type.Optional(Type.String({ maxLength: 128 })),
  tags: Type.Optional(Type.Array(Type.String())),
  enable_debug: Type.Optional(Type.Boolean()),
  compression_model: Type.Optional(
    Type.Union([...COMPRESSION_MODELS, ...EDGEE_GENERIC_MODELS].map((m) => Type.Literal(m))),
  ),
};

export const EdgeeFieldsSchema = {
  enable_compression: Type.Optional(Type.Boolean()),
  enable_claude_compression: Type.Optional(Type.Boolean()),
  enable_opencode_compression: Type.Optional(Type.Boolean()),
  compression_configuration: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  compression_rate: Type.Optional(Type.Number()),
  compression_semantic_preservation_threshold: Type.Optional(Type.Number()),
  compression_technique: Type.Optional(Type.String()),
};

const MEMBER_NAMES = [...Object.keys(GatewayMembersSchema), ...Object.keys(EdgeeFieldsSchema)];

/**
 * Copies the gateway's members and Edgee's from a Messages or Responses body onto the chat
 * request made of it: the pipeline reads them there, whatever route the request came in by.
 */
export function copyGatewayFields(from: object, to: object): void {
  const source = from as Record<string, unknown>;
  const target = to as Record<string, unknown>;
  for (const name of MEMBER_NAMES) if (source[name] !== undefined) target[name] = source[name];
}
