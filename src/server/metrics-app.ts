import type { FastifyInstance } from 'fastify';
import { createApp, type AppOptions } from './create-app.js';
import { registerHttpMetrics, registerMetricsRoute } from './http-metrics.js';

/** The optional separate metrics listener (METRICS_PORT): HTTPS like the others, `/metrics` only. */
export function buildMetricsApp(
  base: Omit<AppOptions, 'sendError' | 'handleError'>,
  token: string | undefined,
): FastifyInstance {
  const app = createApp({
    ...base,
    sendError: (reply, problem) =>
      reply.code(problem.status).type('text/plain; charset=utf-8').send(`${problem.message}\n`),
  });
  registerHttpMetrics(app, 'metrics');
  registerMetricsRoute(app, { token });
  return app;
}
