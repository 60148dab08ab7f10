/**
 * Request fields the gateway itself consumes; no provider may ever see them: the gateway's own
 * (spec 2.1) and those Edgee's SDKs send (src/gateway/schemas/gateway-fields.ts).
 */
export const GATEWAY_ONLY_FIELDS = [
  'gateway_tool_ids',
  'gateway_pending_id',
  'tags',
  'enable_debug',
  'compression_model',
  'enable_compression',
  'enable_claude_compression',
  'enable_opencode_compression',
  'compression_configuration',
  'compression_rate',
  'compression_semantic_preservation_threshold',
  'compression_technique',
] as const;

export function withoutGatewayFields<T extends object>(request: T): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  for (const field of GATEWAY_ONLY_FIELDS) delete copy[field];
  return copy;
}
