type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads `retry-after-ms` (OpenAI, Anthropic SDK convention) before `retry-after` because it is
 * more precise. `retry-after` may be delta-seconds or an HTTP date (RFC 9110 10.2.3).
 */
export function parseRetryAfterMs(headers: HeaderBag, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.round(Number(ms));
  const value = header(headers, 'retry-after');
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export function upstreamRequestId(headers: HeaderBag): string | undefined {
  return header(headers, 'x-request-id') ?? header(headers, 'request-id') ?? header(headers, 'x-goog-request-id');
}
