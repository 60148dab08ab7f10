import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import { noteErrorCode } from './access-log.js';
import type { DocumentedErrors } from './api-docs.js';
import type { HttpProblem } from './http-problem.js';

/**
 * The registry pattern of the surfaces whose errors are `{error, code, message, param?}` (the
 * console and the collector; the gateway keeps OpenAI's envelope, pipeline/errors.ts): each
 * surface declares every code it answers with, its status and default message, in one registry;
 * it throws and sends only codes of that registry, and its OpenAPI document publishes the
 * registry whole (`registryDocs`). `error` stays the status's HTTP reason phrase (spec 7).
 */
export interface ErrorEntry {
  readonly status: number;
  readonly message: string;
}

export type ErrorRegistry = Readonly<Record<string, ErrorEntry>>;

export const errorEntry = (status: number, message: string): ErrorEntry => ({ status, message });

/**
 * The codes of the HTTP kit's own refusals (create-app.ts: bodies, routes, deadlines), which a
 * surface answers before its handlers run: every registry of this envelope starts from them.
 */
export const HTTP_KIT_ERRORS = {
  invalid_json: errorEntry(400, 'The request body is not valid JSON.'),
  invalid_request: errorEntry(400, 'The request is not valid.'),
  not_found: errorEntry(404, 'No such route.'),
  method_not_allowed: errorEntry(405, 'This method is not allowed on this route.'),
  request_timeout: errorEntry(408, 'The request did not arrive in time.'),
  request_too_large: errorEntry(413, 'The request body is too large.'),
  unsupported_media_type: errorEntry(415, 'The request body must be application/json.'),
  headers_too_large: errorEntry(431, 'The request headers are too large.'),
  internal_error: errorEntry(500, 'An internal error occurred.'),
} as const satisfies ErrorRegistry;

export type HttpKitErrorCode = keyof typeof HTTP_KIT_ERRORS;

const CODE_FOR_PROBLEM: Record<HttpProblem['kind'], HttpKitErrorCode> = {
  invalid_json: 'invalid_json',
  validation: 'invalid_request',
  too_large: 'request_too_large',
  unsupported_media_type: 'unsupported_media_type',
  not_found: 'not_found',
  internal: 'internal_error',
};

/** The first kit code of each status: 408 request_timeout, 431 headers_too_large, … */
const CODE_FOR_STATUS = new Map<number, HttpKitErrorCode>();
for (const [code, entry] of Object.entries(HTTP_KIT_ERRORS) as Array<[HttpKitErrorCode, ErrorEntry]>)
  if (!CODE_FOR_STATUS.has(entry.status)) CODE_FOR_STATUS.set(entry.status, code);

/**
 * The code of a refusal: its kind's, unless the refusal has another status (a body that arrived
 * too slowly is a `validation` problem with status 408), then the kit's code of that status, so
 * that the code and the status agree with the registry. A status no code has (499, for a client
 * that left and reads nothing) keeps its kind's code.
 */
function kitCodeOf(kind: HttpProblem['kind'], status: number): HttpKitErrorCode {
  const byKind = CODE_FOR_PROBLEM[kind];
  return HTTP_KIT_ERRORS[byKind].status === status ? byKind : (CODE_FOR_STATUS.get(status) ?? byKind);
}

/** The envelope's body; `param` only when one member of the request is at fault. */
export function errorBody(
  status: number,
  code: string,
  message: string,
  param: string | null,
): Record<string, unknown> {
  const body: Record<string, unknown> = { error: STATUS_CODES[status] ?? 'Error', code, message };
  if (param) body.param = param;
  return body;
}

/** A client-facing error of one surface, by a code of its registry. */
export class RegisteredError<Code extends string> extends Error {
  readonly status: number;
  readonly param: string | null;
  readonly headers: Record<string, string> | undefined;

  constructor(
    registry: Readonly<Record<Code, ErrorEntry>>,
    readonly code: Code,
    options: { message?: string; param?: string | null; headers?: Record<string, string> } = {},
  ) {
    const entry = registry[code];
    super(options.message ?? entry.message);
    this.status = entry.status;
    this.param = options.param ?? null;
    this.headers = options.headers;
  }
}

/**
 * Writes an error of the envelope. Without an Error: the collector answers floods of refusals
 * this way, where an Error's stack would cost as much as the rest of the answer. The access log
 * records the reason phrase, as it always has for these surfaces.
 */
export function sendErrorAnswer(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  param: string | null = null,
): FastifyReply {
  const body = errorBody(status, code, message, param);
  noteErrorCode(reply, body.error as string);
  return reply.code(status).type('application/json').send(body);
}

export function sendRegisteredError<Code extends string>(
  reply: FastifyReply,
  error: RegisteredError<Code>,
): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return sendErrorAnswer(reply, error.status, error.code, error.message, error.param);
}

/** A refusal of the HTTP kit, in this envelope (its status kept: 499 for a client that left). */
export function sendProblem(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  return sendErrorAnswer(
    reply,
    problem.status,
    kitCodeOf(problem.kind, problem.status),
    problem.message,
    problem.param,
  );
}

/** The body of an answer given before any request exists (400, 408, 431). */
export function clientErrorBody(status: number, message: string): Record<string, unknown> {
  return errorBody(status, kitCodeOf('validation', status), message, null);
}

/** The envelope with every code of `registry`, for the surface's OpenAPI document. */
export function registryDocs(name: string, registry: ErrorRegistry, description: string): DocumentedErrors {
  const statuses = [...new Set(Object.values(registry).map((entry) => entry.status))].sort((a, b) => a - b);
  return {
    name,
    schema: {
      type: 'object',
      description,
      required: ['error', 'code', 'message'],
      properties: {
        error: {
          oneOf: statuses.map((status) => ({
            enum: [STATUS_CODES[status]],
            description: `HTTP ${status}`,
            'x-status': status,
          })),
        },
        code: {
          oneOf: Object.entries(registry).map(([code, entry]) => ({
            enum: [code],
            description: `HTTP ${entry.status}: ${entry.message}`,
            'x-status': entry.status,
          })),
        },
        message: { type: 'string' },
        param: { type: 'string', description: 'The request field at fault, when there is one.' },
      },
    },
  };
}
