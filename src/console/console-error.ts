import type { FastifyReply } from 'fastify';
import type { HttpProblem } from '../server/create-app.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Console errors are `{error, message}` (spec 7): `error` is the HTTP reason phrase. */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
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
  const body: Record<string, unknown> = { error: REASONS[status] ?? 'Error', message };
  if (param) body.param = param;
  return reply.code(status).type('application/json').send(body);
}

export function sendConsoleProblem(reply: FastifyReply, problem: HttpProblem): FastifyReply {
  return sendConsoleError(reply, problem.status, problem.message, problem.param);
}
