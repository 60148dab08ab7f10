import { defaultOffloadThreads, OFFLOAD_DEFAULTS, type OffloadSettings } from './offload-settings.js';
import { boundedInt } from './bounded-int.js';

/**
 * Per-route body limits of the gateway and the worker pool for big inputs (issue 16), read at
 * start-up; docs/configuration.md, "Body limits and big inputs". A bad value stops the process.
 */
export interface RouteBodyLimits {
  /** /v1/chat/completions, /v1/messages, /v1/responses (GATEWAY_CHAT_BODY_LIMIT_BYTES). */
  chatBytes: number;
  /** /v1/count_tokens, /v1/messages/count_tokens (GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES). */
  countTokensBytes: number;
  /** /v1/compress (GATEWAY_COMPRESS_BODY_LIMIT_BYTES). */
  compressBytes: number;
}

/** Above this a body is refused whatever the setting says: V8's longest string is ~512 MiB. */
const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** Each route's limit; unset ones take `defaultBytes` (GATEWAY_BODY_LIMIT_BYTES). */
export function readRouteBodyLimits(env: NodeJS.ProcessEnv, defaultBytes: number): RouteBodyLimits {
  const limit = (name: string) => boundedInt(env, name, defaultBytes, 1, MAX_BODY_BYTES);
  return {
    chatBytes: limit('GATEWAY_CHAT_BODY_LIMIT_BYTES'),
    countTokensBytes: limit('GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES'),
    compressBytes: limit('GATEWAY_COMPRESS_BODY_LIMIT_BYTES'),
  };
}

export function readOffloadSettings(env: NodeJS.ProcessEnv): OffloadSettings {
  const nice = boundedInt(env, 'GATEWAY_OFFLOAD_NICE', OFFLOAD_DEFAULTS.nice, 0, 19);
  return {
    threads: boundedInt(env, 'GATEWAY_OFFLOAD_THREADS', defaultOffloadThreads(nice), 1, 64),
    maxQueue: boundedInt(env, 'GATEWAY_OFFLOAD_MAX_QUEUE', OFFLOAD_DEFAULTS.maxQueue, 1, 100_000),
    minChars: boundedInt(env, 'GATEWAY_OFFLOAD_MIN_CHARS', OFFLOAD_DEFAULTS.minChars, 1, MAX_BODY_BYTES),
    compressMinChars: boundedInt(
      env,
      'GATEWAY_OFFLOAD_COMPRESS_MIN_CHARS',
      OFFLOAD_DEFAULTS.compressMinChars,
      1,
      MAX_BODY_BYTES,
    ),
    nice,
  };
}
