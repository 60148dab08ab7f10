import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The output cap the gateway sent upstream for a key with a ceiling (docs/budgets.md). */
export const MAX_TOKENS_APPLIED_HEADER = 'x-gateway-max-tokens-applied';
/** The provider whose answer the client gets. */
export const PROVIDER_HEADER = 'x-gateway-provider';
/** `1` when a provider other than the model's first routable one answered; absent otherwise. */
export const FALLBACK_USED_HEADER = 'x-gateway-fallback-used';

declare module 'fastify' {
  interface FastifyRequest {
    /** Headers decided while the request ran (admission, routing), for whichever reply it gets. */
    gatewayHeaders: Record<string, string> | null;
  }
}

/**
 * Headers a request's reply carries are decided deep in its handling (the output cap at
 * admission, the provider once routing has an answer), before anyone knows whether the reply
 * will be JSON or a stream. They are kept on the request: a JSON reply gets them in `onSend`,
 * a stream passes `gatewayHeaders(request)` to its `writeHead`.
 */
export function decorateGatewayHeaders(app: FastifyInstance): void {
  app.decorateRequest('gatewayHeaders', null);
  app.addHook('onSend', (request, reply, payload, done) => {
    const headers = request.gatewayHeaders;
    if (headers) for (const name in headers) reply.header(name, headers[name]);
    done(null, payload);
  });
}

export function setGatewayHeader(request: FastifyRequest, name: string, value: string): void {
  (request.gatewayHeaders ??= {})[name] = value;
}

export function deleteGatewayHeader(request: FastifyRequest, name: string): void {
  if (request.gatewayHeaders) delete request.gatewayHeaders[name];
}

/** The headers of a streamed reply: its request id and what `setGatewayHeader` recorded. */
export function streamHeaders(request: FastifyRequest): Record<string, string> {
  return request.gatewayHeaders
    ? { 'x-request-id': request.id, ...request.gatewayHeaders }
    : { 'x-request-id': request.id };
}
