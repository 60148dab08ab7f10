import type { FastifyReply } from 'fastify';
import type { HttpProblem } from '../server/create-app.js';
import { GatewayError, type GatewayErrorCode } from '../pipeline/errors.js';
import { noteErrorCode } from '../server/access-log.js';

const CODE_FOR_PROBLEM: Record<HttpProblem['kind'], GatewayErrorCode> = {
  invalid_json: 'invalid_json',
  validation: 'invalid_request',
  too_large: 'request_too_large',
  unsupported_media_type: 'unsupported_media_type',
  not_found: 'not_found',
  internal: 'internal_error',
};

export function sendGatewayError(reply: FastifyReply, error: GatewayError): FastifyReply {
  noteErrorCode(reply, error.code);
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).type('application/json').send(error.toEnvelope());
}

export function problemToGatewayError(problem: HttpProblem): GatewayError {
  return new GatewayError(CODE_FOR_PROBLEM[problem.kind], {
    message: problem.message,
    param: problem.param,
    status: problem.status,
  });
}
