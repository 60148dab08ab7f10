import { UpstreamError, type AbortSignalLike } from './types.js';

export interface RetryOptions {
  maxAttempts?: number; // per target, first try included (default 2)
  baseDelayMs?: number; // default 250
  maxDelayMs?: number; // default 4000; a retry-after above it moves on to the next target
}

export const DEFAULT_RETRY = { maxAttempts: 2, baseDelayMs: 250, maxDelayMs: 4000 } as const;

/**
 * What to do after a failed attempt:
 * - `retry`: same target again (retryable error: connect, timeout, 408/409/429/5xx).
 * - `next`:  skip to the next target. 401/403/404 mean *this* provider's key or model is wrong;
 *            another provider with its own credentials may well succeed. Malformed responses
 *            and retryable errors on the last attempt also go here.
 * - `fail`:  stop. The caller aborted, or the request itself is bad (400, 413, 422 and other
 *            4xx): every provider would reject it the same way, and retrying costs money.
 */
export type Decision = 'retry' | 'next' | 'fail';

const FALLBACK_STATUSES = new Set([401, 403, 404]);

export function decide(error: UpstreamError, attempt: number, maxAttempts: number): Decision {
  const { status, retryable, kind } = error.details;
  if (kind === 'aborted') return 'fail';
  if (retryable) return attempt < maxAttempts ? 'retry' : 'next';
  if (status !== null && FALLBACK_STATUSES.has(status)) return 'next';
  if (status !== null && status >= 400 && status < 500) return 'fail';
  return 'next';
}

/** "Equal jitter" exponential backoff: half fixed, half random, so retries do not synchronise. */
export function backoffMs(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export function sleep(ms: number, signal: AbortSignalLike): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): UpstreamError =>
      new UpstreamError('upstream request aborted', { status: null, retryable: false, kind: 'aborted' });
    if (signal.aborted) return reject(aborted());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
