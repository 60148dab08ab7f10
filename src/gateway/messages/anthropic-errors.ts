import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toProblem } from '../../server/create-app.js';
import { answerClosedClient, isClientConnectionError } from '../../server/client-connection.js';
import { GatewayError, databaseUnavailableError, type GatewayErrorCode } from '../../pipeline/errors.js';
import { problemToGatewayError } from '../send-error.js';
import { setAnthropicRequestId } from './anthropic-headers.js';
import { noteErrorCode } from '../../server/access-log.js';

/**
 * Errors on the Anthropic-shaped routes. Anthropic SDKs read `{type: "error", error: {type,
 * message}}` and pick the error class from `error.type`; gateway clients read `error.code` and
 * `error.param`. The body carries both: Anthropic's envelope and type names, with the gateway's
 * `code`, `param` and extra members (provider, upstream_status, …) inside `error`.
 */
export function toAnthropicError(error: GatewayError, requestId: string) {
  const { code: _code, param: _param, type: _type, message: _message, ...extra } = error.toEnvelope().error;
  return {
    type: 'error',
    error: {
      type: anthropicErrorType(error.code, error.type, error.status),
      message: anthropicWording(error),
      code: error.code,
      param: error.param,
      ...extra,
    },
    request_id: requestId,
  };
}

/** `messages[1].content[0].type` → `messages.1.content.0.type`, as Anthropic names fields. */
export function anthropicPath(param: string): string {
  return param.replace(/\[(\d+)\]/g, '.$1');
}

/**
 * A validation message in Anthropic's form, `<dotted path>: <what is wrong>`
 * (`messages.1.role: must be equal to one of the allowed values`): clients that match
 * Anthropic's messages see the same layout. Other messages are kept.
 */
function anthropicWording(error: GatewayError): string {
  const { param, message } = error;
  if (!param || error.code !== 'invalid_request') return message;
  const match = /^Invalid (?:[\w ]+ at )?([^:]+): (.*?)\.?$/s.exec(message);
  if (!match || match[1] !== param) return message;
  return `${anthropicPath(param)}: ${match[2]}`;
}

/** Anthropic's error type names; where the gateway has a finer code, it picks the nearest. */
function anthropicErrorType(code: GatewayErrorCode, type: GatewayError['type'], status: number): string {
  if (code === 'request_too_large') return 'request_too_large';
  if (code === 'model_not_found') return 'not_found_error';
  if (code === 'provider_timeout') return 'timeout_error';
  if (code === 'overloaded' || status === 529) return 'overloaded_error';
  if (status === 429) return 'rate_limit_error';
  switch (type) {
    case 'server_error':
    case 'provider_error':
      return status >= 500 ? 'api_error' : 'invalid_request_error';
    default:
      return type;
  }
}

export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const unavailable = databaseUnavailableError(error);
  if (unavailable) return unavailable;
  return problemToGatewayError(toProblem(error as FastifyError));
}

/** A route-level error handler: covers auth (onRequest), body parsing, validation and the handler. */
export function sendAnthropicError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isClientConnectionError(error, request))
    return answerClosedClient(request, reply, (closed, problem) =>
      closed.code(problem.status).send(toAnthropicError(problemToGatewayError(problem), request.id)),
    );
  setAnthropicRequestId(request, reply);
  const gatewayError = asGatewayError(error);
  if (gatewayError.code === 'internal_error') request.log.error({ err: error, reqId: request.id }, 'unhandled error');
  if (gatewayError.headers) reply.headers(gatewayError.headers);
  noteErrorCode(reply, gatewayError.code);
  return reply
    .code(anthropicStatus(gatewayError))
    .type('application/json')
    .send(toAnthropicError(gatewayError, request.id));
}

/**
 * Anthropic's API answers an unknown model with 404 `not_found_error`, and its SDKs and Claude
 * Code read it so; the OpenAI-shaped routes use 400 (docs/errors.md).
 */
function anthropicStatus(error: GatewayError): number {
  return error.code === 'model_not_found' ? 404 : error.status;
}
