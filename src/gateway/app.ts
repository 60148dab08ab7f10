import type { FastifyInstance } from 'fastify';
import { createApp, type AppOptions } from '../server/create-app.js';
import { DEFAULT_JSON_MAX_DEPTH } from '../server/json-body.js';
import { GATEWAY_ERROR_DOCS, GatewayError, databaseUnavailableError } from '../pipeline/errors.js';
import { problemToGatewayError, sendGatewayError } from './send-error.js';
import type { GatewayServices } from './gateway-services.js';
import { registerGatewayAuth } from './auth/authenticate-hook.js';
import { registerModelsRoute } from './routes/models.js';
import { registerConcurrencyLimit } from './overload.js';
import { decorateUsageCommit, pendingUsageCommit } from '../pipeline/meter.js';
import { registerCountTokensRoute } from './routes/count-tokens.js';
import { registerCompressRoute } from './routes/compress.js';
import { registerChatCompletionsRoute } from './chat/chat-route.js';
import { registerMessagesRoute } from './messages/messages-route.js';
import { registerMessagesCountTokensRoute } from './messages/count-tokens-route.js';
import { registerResponsesRoute } from './responses/responses-route.js';
import { registerOffloadWarmup } from './warm-offload.js';
import { RefusedRequests, registerRefusedRequests } from './refused-requests.js';
import type { ApiKey } from '../store/api-keys.js';

const DEFAULT_STORED_REFUSALS = 60;

export function buildGatewayApp(
  base: Omit<AppOptions, 'sendError' | 'handleError'>,
  services: GatewayServices,
): FastifyInstance {
  const app = createApp({
    ...base,
    lenientJsonContentType: true,
    errors: GATEWAY_ERROR_DOCS,
    // Routes outside the authenticated scope (404s, /metrics) have no key.
    principal: (request) => (request.apiKey as ApiKey | null | undefined)?.id,
    clientErrorBody: (status, message) =>
      new GatewayError(status === 431 ? 'request_too_large' : 'invalid_request', { status, message }).toEnvelope(),
    sendError: (reply, problem) => sendGatewayError(reply, problemToGatewayError(problem)),
    handleError: (error, request, reply) => {
      if (error instanceof GatewayError) return sendGatewayError(reply, error);
      const unavailable = databaseUnavailableError(error);
      if (!unavailable) return undefined;
      const what = unavailable.code === 'overloaded' ? 'worker pool for large inputs full' : 'database unavailable';
      request.log.warn({ err: error, reqId: request.id }, what);
      return sendGatewayError(reply, unavailable);
    },
  });
  registerConcurrencyLimit(app, services.maxConcurrency);
  decorateUsageCommit(app);
  // A JSON answer leaves only after its usage row is committed (streams wait before their last event).
  app.addHook('onSend', (request, _reply, payload, done) => {
    const committed = pendingUsageCommit(request);
    if (committed) void committed.then(() => done(null, payload));
    else done(null, payload);
  });
  const limits = services.bodyLimits;
  app.register(async (authenticated) => {
    registerGatewayAuth(authenticated, services.authenticator);
    registerRefusedRequests(
      authenticated,
      new RefusedRequests(services.usage, services.storedRefusalsPerKeyPerMinute ?? DEFAULT_STORED_REFUSALS),
    );
    registerOffloadWarmup(authenticated);
    registerModelsRoute(authenticated, services);
    registerChatCompletionsRoute(authenticated, services);
    registerCountTokensRoute(authenticated, limits?.countTokensBytes);
    registerCompressRoute(
      authenticated,
      {
        bodyLimit: limits?.compressBytes ?? base.bodyLimitBytes,
        jsonMaxDepth: base.jsonMaxDepth ?? DEFAULT_JSON_MAX_DEPTH,
      },
      services,
    );
    registerMessagesRoute(authenticated, services);
    registerMessagesCountTokensRoute(authenticated, limits?.countTokensBytes);
    registerResponsesRoute(authenticated, services);
  });
  return app;
}
