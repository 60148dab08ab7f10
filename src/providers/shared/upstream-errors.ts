import { UpstreamError } from '../types.js';
import { parseRetryAfterMs, upstreamRequestId } from '../http/retry-after.js';
import { sanitizeMessage } from './sanitize.js';

type HeaderBag = Record<string, string | string[] | undefined>;

/** 408 and 409 are transient (timeout, lock contention); 429 and 5xx are the usual suspects. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Finds the human message in the common error envelopes: `{error: {message}}` (OpenAI, Gemini),
 * `{type: "error", error: {message}}` (Anthropic), `{message}`, or an array of those (Gemini
 * sometimes wraps the envelope in a list). Falls back to the raw text.
 */
export function extractErrorMessage(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.trim() || 'no error body';
  }
  const candidate: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
  if (candidate && typeof candidate === 'object') {
    const record = candidate as Record<string, unknown>;
    const error = record.error;
    if (error && typeof error === 'object') {
      const message = (error as Record<string, unknown>).message;
      if (typeof message === 'string' && message) return message;
    }
    if (typeof error === 'string' && error) return error;
    if (typeof record.message === 'string' && record.message) return record.message;
  }
  return body.trim() || 'no error body';
}

/** The standard translation of an upstream non-2xx answer; codecs only pick the provider label. */
export function httpStatusError(provider: string, status: number, body: string, headers: HeaderBag): UpstreamError {
  const retryAfterMs = parseRetryAfterMs(headers);
  const requestId = upstreamRequestId(headers);
  return new UpstreamError(sanitizeMessage(`${provider} returned ${status}: ${extractErrorMessage(body)}`), {
    status,
    retryable: isRetryableStatus(status),
    kind: 'http',
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(requestId !== undefined ? { upstreamRequestId: requestId } : {}),
  });
}

export function malformed(message: string, cause?: unknown): UpstreamError {
  return new UpstreamError(sanitizeMessage(message), { status: null, retryable: false, kind: 'malformed', cause });
}

/** An error the provider reported inside a successful (200) stream. */
export function streamedError(provider: string, message: string, retryable: boolean): UpstreamError {
  return new UpstreamError(sanitizeMessage(`${provider} stream error: ${message}`), {
    status: null,
    retryable,
    kind: 'http',
  });
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw malformed(`${what} is not valid JSON`, cause);
  }
}
