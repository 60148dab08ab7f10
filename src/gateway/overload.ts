import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../pipeline/errors.js';
import { isHealthProbe } from '../server/health-routes.js';

/**
 * A per-instance ceiling on concurrent gateway requests. Beyond it the gateway answers 503
 * `overloaded` with `retry-after` at once, instead of queueing work and growing memory until
 * every request is slow. Streams count until they end. Set with GATEWAY_MAX_CONCURRENCY.
 * Health probes neither count nor are refused (server/health-routes.ts).
 */
export function registerConcurrencyLimit(app: FastifyInstance, limit: number): void {
  let inFlight = 0;
  const release = () => inFlight--;
  // Callback style: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    if (isHealthProbe(request)) return done();
    if (inFlight >= limit) {
      done(
        new GatewayError('overloaded', {
          message: `The gateway is handling ${limit} requests, its configured maximum; retry shortly.`,
          headers: { 'retry-after': '1' },
        }),
      );
      return;
    }
    inFlight++;
    // `on`, not `once`: a response closes once, and `once` costs a wrapper and a removal per request.
    reply.raw.on('close', release);
    done();
  });
}
