import type { FastifyInstance } from 'fastify';
import { createApp, type AppOptions } from '../server/create-app.js';
import { sendConsoleProblem } from '../console/console-error.js';

/**
 * The collector listener. Event ingestion (POST /_gateway/event) is not built yet: every
 * route answers 404 in the `{error, message}` envelope (see README, "Not built yet").
 */
export function buildCollectorApp(base: Omit<AppOptions, 'sendError' | 'handleError'>): FastifyInstance {
  const app = createApp({ ...base, sendError: sendConsoleProblem });
  return app;
}
