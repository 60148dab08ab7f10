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

export const EdgeeFieldsSchema = {
  enable_compression: Type.Optional(Type.Boolean()),
  enable_claude_compression: Type.Optional(Type.Boolean()),
  enable_opencode_compression: Type.Optional(Type.Boolean()),
  compression_configuration: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  compression_rate: Type.Optional(Type.Number()),
  compression_semantic_preservation_threshold: Type.Optional(Type.Number()),
  compression_technique: Type.Optional(Type.String()),
};

/** The gateway's own request members (spec 2.1) that every route's body may carry. */
const GATEWAY_MEMBERS = ['tags', 'enable_debug', 'gateway_tool_ids', 'gateway_pending_id', 'compression_model'];

/**
 * Copies the gateway's members and Edgee's from a Messages or Responses body onto the chat
 * request made of it: the pipeline reads them there, whatever route the request came in by.
 */
export function copyGatewayFields(from: object, to: object): void {
  const source = from as Record<string, unknown>;
  const target = to as Record<string, unknown>;
  for (const name of GATEWAY_MEMBERS) if (source[name] !== undefined) target[name] = source[name];
  for (const name of Object.keys(EdgeeFieldsSchema)) if (source[name] !== undefined) target[name] = source[name];
}
