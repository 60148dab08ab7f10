import type { FastifyReply } from 'fastify';
import {
  errorEntry,
  HTTP_KIT_ERRORS,
  RegisteredError,
  registryDocs,
  sendRegisteredError,
  type ErrorRegistry,
} from '../server/error-registry.js';

/**
 * Every error code the collector answers with, with its status and default message: the HTTP
 * kit's refusals and the collector's own. docs/errors.md ("Collector") documents them; the
 * collector's OpenAPI document publishes them (test/server/error-registry.test.ts).
 */
export const COLLECTOR_ERRORS = {
  ...HTTP_KIT_ERRORS,
  unknown_host: errorEntry(404, 'No project collects events for this host.'),
  invalid_event: errorEntry(400, 'An event does not match the collection format.'),
  event_too_large: errorEntry(413, 'An event is larger than the stored-event size limit once stored.'),
  rate_limited: errorEntry(
    429,
    "The client address's or the project's event budget is spent; retry after Retry-After.",
  ),
  client_penalized: errorEntry(429, 'This client address kept sending while told to wait; it is refused for a while.'),
  quota_exceeded: errorEntry(
    429,
    'The project has reached its stored-event quota; nothing was accepted. Events are accepted again as retention deletes old ones or once the quota is raised.',
  ),
  unavailable: errorEntry(503, 'The events could not be stored; nothing was accepted. Retry.'),
} as const satisfies ErrorRegistry;

export type CollectorErrorCode = keyof typeof COLLECTOR_ERRORS;

/** Collector errors share the console's envelope shape, `{error, code, message, param?}`, with codes of their own. */
export class CollectorError extends RegisteredError<CollectorErrorCode> {
  constructor(
    code: CollectorErrorCode,
    options: { message?: string; param?: string | null; headers?: Record<string, string> } = {},
  ) {
    super(COLLECTOR_ERRORS, code, options);
    this.name = 'CollectorError';
  }
}

export function sendCollectorError(reply: FastifyReply, error: CollectorError): FastifyReply {
  return sendRegisteredError(reply, error);
}

export const COLLECTOR_ERROR_DOCS = registryDocs(
  'CollectorError',
  COLLECTOR_ERRORS,
  'The error envelope of the collector (docs/errors.md): `error` is the HTTP reason phrase of the status; the codes each phrase stands for are listed under `x-codes`.',
);
