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
 * Every error code the console answers with, with its status and default message: the HTTP
 * kit's refusals and the console's own. docs/errors.md ("Console API") documents them; the
 * console's OpenAPI document publishes them (test/server/error-registry.test.ts).
 */
export const CONSOLE_ERRORS = {
  ...HTTP_KIT_ERRORS,
  unauthorized: errorEntry(401, 'Missing, unknown or expired console token.'),
  forbidden: errorEntry(403, 'This console token may not make this request.'),
  conflict: errorEntry(409, 'The request conflicts with what is stored.'),
  share_link_expired: errorEntry(410, 'This share link has expired.'),
  share_link_revoked: errorEntry(410, 'This share link was revoked.'),
  domain_not_verified: errorEntry(422, 'No check found the verification token.'),
  reload_refused: errorEntry(422, 'The reload was refused: what was in use stays in use.'),
  verification_busy: errorEntry(429, 'Too many domain verifications are running; try again in a moment.'),
} as const satisfies ErrorRegistry;

export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

/** Console errors are `{error, code, message, param?}` (spec 7: `error` is the HTTP reason phrase). */
export class ConsoleError extends RegisteredError<ConsoleErrorCode> {
  constructor(code: ConsoleErrorCode, message?: string, param: string | null = null, headers?: Record<string, string>) {
    super(CONSOLE_ERRORS, code, { message, param, headers });
    this.name = 'ConsoleError';
  }
}

export function sendConsoleError(reply: FastifyReply, error: ConsoleError): FastifyReply {
  return sendRegisteredError(reply, error);
}

export const CONSOLE_ERROR_DOCS = registryDocs(
  'ConsoleError',
  CONSOLE_ERRORS,
  'The error envelope of the console (docs/errors.md): `error` is the HTTP reason phrase of the status; the codes each phrase stands for are listed under `x-codes`.',
);
