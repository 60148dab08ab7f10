import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpDuration, httpInFlight, httpRequests, metricsRegistry } from '../metrics/metrics.js';
import type { CounterChild, HistogramChild } from '../metrics/labelled-metrics.js';
import type { RequestEnd } from './access-log.js';

export interface MetricsEndpointOptions {
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token?: string | undefined;
}

/**
 * Request metrics for one listener: in-flight gauge, and per (route template, method, status)
 * a counter and a duration histogram. The end is taken from the socket's `close`, so hijacked
 * SSE streams and clients that leave early are counted too (status 499 when the answer was not
 * finished). Labelled children are cached: the hot path does one Map lookup per request.
 * `onEnd` (the access log) is told of the same end: one close listener per request serves both.
 */
export function registerHttpMetrics(app: FastifyInstance, surface: string, onEnd?: RequestEnd): void {
  const inFlight = httpInFlight.labels(surface);
  const observers = new Map<string, { counter: CounterChild; histogram: HistogramChild }>();
  const observerFor = (route: string, method: string, status: number) => {
    const id = `${route} ${method} ${status}`;
    let observer = observers.get(id);
    if (!observer) {
      observer = {
        counter: httpRequests.labels(surface, route, method, String(status)),
        histogram: httpDuration.labels(surface, route, method),
      };
      observers.set(id, observer);
    }
    return observer;
  };

  // Callback style: no promise per request on the hot path.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const started = performance.now();
    inFlight.inc();
    // `on`, not `once`: a response closes once, and `once` costs a wrapper and a removal per request.
    reply.raw.on('close', () => {
      inFlight.dec();
      const status = reply.raw.writableFinished ? reply.raw.statusCode : 499;
      const route = request.routeOptions.url;
      const observer = observerFor(route ?? '(unmatched)', request.method, status);
      const elapsedMs = performance.now() - started;
      observer.counter.inc();
      observer.histogram.observe(elapsedMs / 1000);
      onEnd?.(request, status, elapsedMs, route);
    });
    done();
  });
}

/** GET /metrics in the Prometheus text exposition format. */
export function registerMetricsRoute(app: FastifyInstance, options: MetricsEndpointOptions = {}): void {
  const expected = options.token ? digest(options.token) : undefined;
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics of this process',
        description:
          'Text exposition format 0.0.4. Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set.',
        tags: ['operations'],
        security: options.token ? [{ metricsToken: [] }] : [],
      },
    },
    async (request, reply) => {
      if (expected) {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
        if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
          return reply
            .code(401)
            .header('www-authenticate', 'Bearer')
            .type('text/plain; charset=utf-8')
            .send('metrics token required\n');
        }
      }
      const body = await metricsRegistry.metrics();
      return reply.type(metricsRegistry.contentType).header('cache-control', 'no-store').send(body);
    },
  );
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
