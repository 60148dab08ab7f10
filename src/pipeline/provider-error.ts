import { RoutingError, UpstreamError } from '../providers/index.js';
import { GatewayError } from './errors.js';

/** Upstream statuses that describe the gateway's own setup (its key, its model name), not the caller's request. */
const SETUP_FAILURES = new Set([401, 403, 404]);
/** Anthropic's "overloaded" status. */
const OVERLOADED = 529;

/**
 * An upstream failure as the client sees it: `provider_error` with the upstream status and a
 * sanitised message. A 4xx that is about the request itself (400, 413, 422, 429) keeps its
 * status so clients react as they would to the provider; a failure of the gateway's setup or
 * of the provider becomes 502, a timeout 504. Anthropic's 529 (`overloaded_error`) stays 529:
 * its clients back off on it. `retry-after` is passed on whenever the provider sent one.
 */
export function toProviderGatewayError(error: unknown, provider: string | undefined): GatewayError {
  if (!(error instanceof UpstreamError)) {
    return new GatewayError('provider_error', {
      message: 'The provider adapter failed.',
      extra: provider ? { provider } : {},
    });
  }
  const details = error instanceof RoutingError ? error.lastError.details : error.details;
  const status = details.status;
  const extra: Record<string, unknown> = { upstream_status: status };
  if (provider) extra.provider = provider;
  if (details.upstreamRequestId) extra.upstream_request_id = details.upstreamRequestId;
  const headers: Record<string, string> = {};
  if (details.retryAfterMs !== undefined)
    headers['retry-after'] = String(Math.max(1, Math.ceil(details.retryAfterMs / 1000)));
  if (details.kind === 'timeout') {
    return new GatewayError('provider_timeout', { message: `Provider timeout: ${error.message}`, extra, headers });
  }
  const httpStatus = passedOnStatus(status);
  const message =
    status !== null
      ? `Provider returned ${status}: ${error.message}`
      : details.kind === 'oversized'
        ? `Provider answer refused: ${error.message}`
        : `Provider unreachable: ${error.message}`;
  return new GatewayError('provider_error', { message, status: httpStatus, extra, headers });
}

/** The status the client gets for an upstream HTTP status; see `toProviderGatewayError`. */
function passedOnStatus(status: number | null): number {
  if (status === OVERLOADED) return OVERLOADED;
  return status !== null && status >= 400 && status < 500 && !SETUP_FAILURES.has(status) ? status : 502;
}
