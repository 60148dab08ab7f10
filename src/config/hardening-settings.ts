import { boundedInt } from './bounded-int.js';

/** Input and storage bounds of the hardening work (issue 16), read at start-up; docs/configuration.md, "Input bounds". */
export interface HardeningSettings {
  /** Deepest nesting of arrays and objects in a JSON body, on every listener (GATEWAY_JSON_MAX_DEPTH). */
  jsonMaxDepth: number;
  /** How long a `gateway_pending_id` can be sent back (GATEWAY_PENDING_TTL_SECONDS). */
  pendingTtlMs: number;
  /** Live pending ids kept per gateway key; a new one beyond it evicts the key's oldest (GATEWAY_PENDING_MAX_PER_KEY). */
  pendingMaxPerKey: number;
}

/**
 * Code behind the parser walks bodies recursively (schema validation, compression, provider
 * conversion, JSON.stringify): a limit in the thousands would let a body reach those depths again.
 */
export const JSON_MAX_DEPTH_LIMIT = 1_000;

export function readHardeningSettings(env: NodeJS.ProcessEnv = process.env): HardeningSettings {
  return {
    jsonMaxDepth: boundedInt(env, 'GATEWAY_JSON_MAX_DEPTH', 64, 2, JSON_MAX_DEPTH_LIMIT),
    pendingTtlMs: boundedInt(env, 'GATEWAY_PENDING_TTL_SECONDS', 3_600, 10, 7 * 24 * 3_600) * 1_000,
    pendingMaxPerKey: boundedInt(env, 'GATEWAY_PENDING_MAX_PER_KEY', 1_000, 1, 1_000_000),
  };
}
