import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';

/**
 * Anthropic answers every request with a `request-id` header (its SDKs expose it as
 * `_request_id`, Claude Code logs it); the gateway's own `x-request-id` stays too. Set on the
 * raw response so that streams, which write their headers themselves, carry it as well.
 */
export const anthropicRequestIdHook: onRequestHookHandler = (request, reply, done) => {
  setAnthropicRequestId(request, reply);
  done();
};

export function setAnthropicRequestId(request: FastifyRequest, reply: FastifyReply): void {
  if (!reply.raw.headersSent) reply.raw.setHeader('request-id', request.id);
}
