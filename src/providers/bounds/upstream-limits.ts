import { UPSTREAM_LIMIT_DEFAULTS, type UpstreamLimits } from '../../config/upstream-limits-settings.js';
import { UpstreamError } from '../types.js';

/**
 * The process's upstream answer bounds: set once at start-up (wiring/start.ts), read by the
 * transport, the SSE decoder and whoever keeps an answer's text. Process-wide like the keep-alive
 * pool: they bound what one process holds, whatever request asked for it.
 */
let current: UpstreamLimits = UPSTREAM_LIMIT_DEFAULTS;

export function configureUpstreamLimits(limits: UpstreamLimits): void {
  current = limits;
}

export function upstreamLimits(): UpstreamLimits {
  return current;
}

/**
 * An answer past one of its bounds. Not retryable: the same upstream would send the same again,
 * and every byte of it would be read again; a fallback target may still answer.
 */
export function answerTooLarge(what: string, limitBytes: number): UpstreamError {
  return new UpstreamError(`upstream ${what} exceeded the gateway's limit of ${limitBytes} bytes`, {
    status: null,
    retryable: false,
    kind: 'oversized',
  });
}
