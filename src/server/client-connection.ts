import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpProblem } from './http-problem.js';

/** Codes a socket reports when its peer went away; a database driver's socket reports the same ones. */
const PEER_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * True when the error is the client leaving: its connection reset or closed before its request
 * body arrived in full. Node reports that as `aborted` with code ECONNRESET, the code a lost
 * database connection has too, so the request's own stream decides: it was cut off before its
 * end, or its socket is gone. A database reset while the client still waits is not this.
 */
export function isClientConnectionError(error: unknown, request: FastifyRequest): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !PEER_GONE.has(code)) return false;
  const raw = request.raw;
  return raw.readableAborted || raw.socket?.destroyed === true;
}

/** 499, nginx's "client closed request": nobody reads the answer, but metrics and logs name what happened. */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * A client that left is not the service's failure: logged at debug as what it is, and answered
 * (into a closed socket) so that Fastify's bookkeeping ends normally.
 */
export function answerClosedClient(
  request: FastifyRequest,
  reply: FastifyReply,
  sendError: (reply: FastifyReply, problem: HttpProblem) => FastifyReply,
): FastifyReply {
  request.log.debug({ reqId: request.id }, 'client closed the connection before its request was complete');
  return sendError(reply, {
    status: CLIENT_CLOSED_REQUEST,
    kind: 'validation',
    message: 'The client closed the connection before its request was complete.',
    param: null,
  });
}
