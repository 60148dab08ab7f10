/** Request fields the gateway itself consumes; no provider may ever see them. */
export const GATEWAY_ONLY_FIELDS = [
  'gateway_tool_ids',
  'gateway_pending_id',
  'tags',
  'enable_debug',
  'compression_model',
] as const;

export function withoutGatewayFields<T extends object>(request: T): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  for (const field of GATEWAY_ONLY_FIELDS) delete copy[field];
  return copy;
}
