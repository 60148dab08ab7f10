import type { FastifyReply } from 'fastify';
import type { HttpProblem } from '../server/create-app.js';
import { noteErrorCode } from '../server/access-log.js';

/** The console's (and the collector's) error registry: every status either surface answers with, and its `error` member. */
export const CONSOLE_ERRORS = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
} as const;

/** A status the console and collector answer with; a ConsoleError can carry no other. */
export type ConsoleStatus = keyof typeof CONSOLE_ERRORS;

/** Console errors are `{error, message}` (spec 7): `error` is the HTTP reason phrase. */
export class ConsoleError extends Error {
  constructor(
    readonly status: ConsoleStatus,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ConsoleError';
  }
}

export function sendConsoleError(
  reply: FastifyReply,
  status: number,
  message: string,
  param: string | null = null,
): FastifyReply {
  const error = (CONSOLE_ERRORS as Record<number, string>)[status] ?? 'Error';
  const body: Record<string, unknown> = { error, message };
  if (param) body.param = param;
  noteErrorCode(reply, error);
  return reply.code(status).type('application/json').send(body);
}

export function sendConsoleProblem(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  return sendConsoleError(reply, problem.status, problem.message, problem.param);
}

/** The `{error, message, param}` envelope with every entry of CONSOLE_ERRORS, for the OpenAPI document. */
export const CONSOLE_ERROR_DOCS = {
  name: 'ConsoleError',
  schema: {
    type: 'object',
    description:
      'The error envelope of this listener (docs/errors.md). `error` is the HTTP reason phrase of the status.',
    required: ['error', 'message'],
    properties: {
      error: {
        oneOf: Object.entries(CONSOLE_ERRORS).map(([status, reason]) => ({
          enum: [reason],
          description: `HTTP ${status}`,
          'x-status': Number(status),
        })),
      },
      message: { type: 'string' },
      param: { type: 'string', description: 'The request field at fault, when there is one.' },
    },
  },
};
