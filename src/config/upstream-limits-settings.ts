import { boundedInt } from './bounded-int.js';

/**
 * What the gateway holds of an upstream's answer at most (issue 27, row 3; docs/configuration.md,
 * "Upstream answer bounds"; the reasoning: docs/decisions.md, "Bounded upstreams"). Past a
 * per-request limit the request fails with the surface's error and the upstream is closed.
 */
export interface UpstreamLimits {
  /** One SSE line still waiting for its line ending (GATEWAY_UPSTREAM_SSE_LINE_BYTES). */
  sseLineBytes: number;
  /** One SSE event still waiting for its blank line, all its lines together (GATEWAY_UPSTREAM_SSE_EVENT_BYTES). */
  sseEventBytes: number;
  /** A non-streamed (JSON) answer (GATEWAY_UPSTREAM_JSON_BYTES). */
  jsonBytes: number;
  /** The text of a streamed answer kept for metering and gateway tools, per request (GATEWAY_UPSTREAM_KEPT_TEXT_BYTES). */
  keptTextBytes: number;
  /** All of the above held at once across the process (GATEWAY_UPSTREAM_BUFFERED_BYTES). */
  bufferedBytes: number;
}

const MIB = 1024 * 1024;

export const UPSTREAM_LIMIT_DEFAULTS: UpstreamLimits = {
  sseLineBytes: 8 * MIB,
  sseEventBytes: 8 * MIB,
  jsonBytes: 32 * MIB,
  // 128k output tokens are ~0.5 MB of text: eight times that leaves room for any real answer.
  keptTextBytes: 4 * MIB,
  // Held bytes cost about their size again in garbage and allocator slack under attack: 128 MiB
  // kept the built gateway under 512 MiB RSS with 48 hostile streams; 256 MiB did not (docs/decisions.md).
  bufferedBytes: 128 * MIB,
};

/** Above this V8 cannot hold the text as one string (~512 MiB); a limit that high bounds nothing. */
const MAX_LIMIT_BYTES = 256 * MIB;
const MIN_LIMIT_BYTES = 1024;

export function readUpstreamLimits(env: NodeJS.ProcessEnv = process.env): UpstreamLimits {
  const limit = (name: string, fallback: number) => boundedInt(env, name, fallback, MIN_LIMIT_BYTES, MAX_LIMIT_BYTES);
  const d = UPSTREAM_LIMIT_DEFAULTS;
  return {
    sseLineBytes: limit('GATEWAY_UPSTREAM_SSE_LINE_BYTES', d.sseLineBytes),
    sseEventBytes: limit('GATEWAY_UPSTREAM_SSE_EVENT_BYTES', d.sseEventBytes),
    jsonBytes: limit('GATEWAY_UPSTREAM_JSON_BYTES', d.jsonBytes),
    keptTextBytes: limit('GATEWAY_UPSTREAM_KEPT_TEXT_BYTES', d.keptTextBytes),
    bufferedBytes: boundedInt(
      env,
      'GATEWAY_UPSTREAM_BUFFERED_BYTES',
      d.bufferedBytes,
      MIN_LIMIT_BYTES,
      16 * 1024 * MIB,
    ),
  };
}
