import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKey } from '../../store/api-keys.js';
import type { KeyAuthenticator } from './key-authenticator.js';
import { extractGatewayKey } from './credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey;
  }
  interface FastifyContextConfig {
    /** Routes that Anthropic-style clients call accept the key in `x-api-key` too. */
    allowXApiKey?: boolean;
  }
}

/** Authenticates before the body is read, so an unauthenticated caller costs no parsing. */
export function registerGatewayAuth(app: FastifyInstance, authenticator: KeyAuthenticator): void {
  app.decorateRequest('apiKey', null as unknown as ApiKey);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const allowXApiKey = request.routeOptions.config?.allowXApiKey === true;
    request.apiKey = await authenticator.authenticate(extractGatewayKey(request.headers, allowXApiKey));
  });
}
