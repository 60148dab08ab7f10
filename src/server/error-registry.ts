import { STATUS_CODES } from 'node:http';
import type { FastifyReply } from 'fastify';
import { noteErrorCode } from './access-log.js';
import type { DocumentedErrors } from './api-docs.js';
import type { HttpProblem } from './http-problem.js';

/**
 * The registry pattern of the surfaces whose errors are `{error, message, param?}` (the console
 * and the collector; the gateway keeps OpenAI's envelope, pipeline/errors.ts): each surface
 * declares every code it answers with, its status and default message, in one registry; it
 * throws and sends only codes of that registry, and its OpenAPI document publishes the registry
 * whole (`registryDocs`). On the wire `error` is the status's HTTP reason phrase (spec 7), as it
 * always was; the document says which codes each reason phrase stands for.
 */
export interface ErrorEntry {
  readonly status: number;
  readonly message: string;
}

export type ErrorRegistry = Readonly<Record<string, ErrorEntry>>;

export const errorEntry = (status: number, message: string): ErrorEntry => ({ status, message });

/**
 * The HTTP kit's own refusals (create-app.ts: bodies, routes, deadlines), which a surface
 * answers before its handlers run: every registry of this envelope starts from them.
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

/** The envelope's body; `param` only when one member of the request is at fault. */
function errorBody(status: number, message: string, param: string | null): Record<string, unknown> {
  const body: Record<string, unknown> = { error: STATUS_CODES[status] ?? 'Error', message };
  if (param) body.param = param;
  return body;
}

/** The access log records the reason phrase, as it always has for these surfaces. */
function sendBody(reply: FastifyReply, status: number, message: string, param: string | null): FastifyReply {
  const body = errorBody(status, message, param);
  noteErrorCode(reply, body.error as string);
  return reply.code(status).type('application/json').send(body);
}

/** A client-facing error of one surface, by a code of its registry. */
export class RegisteredError<Code extends string> extends Error {
  readonly status: number;
  readonly param: string | null;
  readonly headers: Record<string, string> | undefined;

  constructor(
    registry: Readonly<Record<Code, ErrorEntry>>,
    readonly code: Code,
    options: { message?: string | undefined; param?: string | null; headers?: Record<string, string> } = {},
  ) {
    const entry = registry[code];
    super(options.message ?? entry.message);
    this.status = entry.status;
    this.param = options.param ?? null;
    this.headers = options.headers;
  }
}

export function sendRegisteredError<Code extends string>(
  reply: FastifyReply,
  error: RegisteredError<Code>,
): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return sendBody(reply, error.status, error.message, error.param);
}

/**
 * Answers a registry code without an Error: the collector answers floods of refusals this way,
 * where an Error's stack would cost as much as the rest of the answer.
 */
export function sendErrorAnswer<Code extends string>(
  reply: FastifyReply,
  registry: Readonly<Record<Code, ErrorEntry>>,
  code: Code,
  message: string = registry[code].message,
): FastifyReply {
  return sendBody(reply, registry[code].status, message, null);
}

/** A refusal of the HTTP kit, in this envelope (its status kept: 499 for a client that left). */
export function sendProblem(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  return sendBody(reply, problem.status, problem.message, problem.param);
}

/**
 * The envelope for the surface's OpenAPI document: `error` lists the reason phrase of every
 * status the registry holds, each with the codes it stands for (`x-codes`: code → default message).
 */
export function registryDocs(name: string, registry: ErrorRegistry, description: string): DocumentedErrors {
  const byStatus = new Map<number, Record<string, string>>();
  for (const [code, entry] of Object.entries(registry)) {
    const codes = byStatus.get(entry.status) ?? {};
    codes[code] = entry.message;
    byStatus.set(entry.status, codes);
  }
  return {
    name,
    schema: {
      type: 'object',
      description,
      required: ['error', 'message'],
      properties: {
        error: {
          oneOf: [...byStatus.entries()]
            .sort(([a], [b]) => a - b)
            .map(([status, codes]) => ({
              enum: [STATUS_CODES[status]],
              description: `HTTP ${status}: ${Object.entries(codes)
                .map(([code, message]) => `${code} (${message})`)
                .join('; ')}`,
              'x-status': status,
              'x-codes': codes,
            })),
        },
        message: { type: 'string' },
        param: { type: 'string', description: 'The request field at fault, when there is one.' },
      },
    },
  };
}
