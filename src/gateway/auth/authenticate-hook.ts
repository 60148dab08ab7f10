import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKey } from '../../store/api-keys.js';
import type { KeyAuthenticator } from './key-authenticator.js';
import { extractGatewayKey } from './credentials.js';

// `request.apiKey` is declared by the call core, which reads it (src/pipeline/call.ts).
declare module 'fastify' {
  interface FastifyContextConfig {
    /** Routes that Anthropic-style clients call accept the key in `x-api-key` too. */
    allowXApiKey?: boolean;
  }
}

/** Authenticates before the body is read, so an unauthenticated caller costs no parsing. */
export function registerGatewayAuth(app: FastifyInstance, authenticator: KeyAuthenticator): void {
  app.decorateRequest('apiKey', null as unknown as ApiKey);
  // Callback style, and synchronous for a cached key: no promise on the hot path.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    let found: ApiKey | Promise<ApiKey>;
    try {
      // Fastify's `routeOptions` builds a new object on every read: read only for an x-api-key.
      const allowXApiKey = () => request.routeOptions.config?.allowXApiKey === true;
      found = authenticator.authenticate(extractGatewayKey(request.headers, allowXApiKey));
    } catch (error) {
      done(error as Error);
      return;
    }
    if (!(found instanceof Promise)) {
      request.apiKey = found;
      done();
      return;
    }
    found.then(
      (key) => {
        request.apiKey = key;
        done();
      },
      (error: Error) => done(error),
    );
  });
}
