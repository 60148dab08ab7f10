import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadinessReport } from './readiness.js';

/** Answers whether this listener can serve now (server/readiness.ts). */
export type ReadinessProbe = () => Promise<ReadinessReport>;

export const HEALTH_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
/** The start of every URL a health route can match. */
const HEALTH_URL_START = new RegExp(`^(?:${[...HEALTH_ROUTES].join('|')})`);

/**
 * Whether a request is a load balancer's probe: probes skip the concurrency limit, since a
 * liveness probe refused under load would get a busy instance restarted.
 */
export function isHealthProbe(request: FastifyRequest): boolean {
  // Every request passes here: a URL that cannot be a probe's is told apart without
  // `routeOptions`, which builds a new object on every read.
  if (!HEALTH_URL_START.test(request.url)) return false;
  const route = request.routeOptions.url;
  return route !== undefined && HEALTH_ROUTES.has(route);
}

const CheckState = Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('timeout')]);

const ReadinessSchema = Type.Object({
  ready: Type.Boolean(),
  draining: Type.Boolean({ description: 'True from the SIGTERM on, while in-flight requests finish.' }),
  checks: Type.Record(Type.String(), CheckState, {
    description:
      'Each dependency of this listener: `store` (one query: the database answers and every migration of this build is applied), `redis` (the collector only, when its Redis URL is set). Empty while draining.',
  }),
});

/**
 * GET /healthz and GET /readyz, unauthenticated, on every listener. The probe's answer is a
 * status document with the same shape on 200 and 503, not an error envelope: a load balancer
 * reads the status, an operator the checks.
 */
export function registerHealthRoutes(app: FastifyInstance, readiness: ReadinessProbe): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process serves',
        description: 'Always 200 while the process answers HTTP; checks nothing else, so it stays cheap.',
        tags: ['operations'],
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: the store answers, migrations are applied, Redis answers where configured, not draining',
        description:
          'Checks are cached for 1 s and bounded by a 2 s deadline. 503 from the moment a SIGTERM starts draining, while in-flight requests finish.',
        tags: ['operations'],
        security: [],
        response: { 200: ReadinessSchema, 503: ReadinessSchema },
      },
    },
    async (_request, reply) => {
      const report = await readiness();
      return reply
        .code(report.ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send(report);
    },
  );
}
