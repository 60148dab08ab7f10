import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createApp, type AppOptions } from '../server/create-app.js';
import {
  COLLECTOR_ERROR_DOCS,
  COLLECTOR_ERRORS,
  CollectorError,
  sendCollectorError,
  type CollectorErrorCode,
} from './collector-errors.js';
import { sendErrorAnswer, sendProblem } from '../server/error-registry.js';
import { collectBodySchema, type CollectBody } from './event-schema.js';
import { buildEvents } from './build-events.js';
import { hostnameOf, type ProjectDirectory, type ResolvedProject } from './project-directory.js';
import type { EventIntake } from './event-intake.js';
import type { CollectorRateLimits } from './limits/rate-limits.js';
import { rateLimitMessage } from './limits/limit-errors.js';
import { collectorMetrics } from '../metrics/collector-metrics.js';
import type { ClientPenalties } from '../server/client-penalties.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The project of the Host header, set before the body is read (collector listener only). */
    collectorProject: ResolvedProject;
  }
}

export interface CollectorServices {
  directory: ProjectDirectory;
  intake: EventIntake;
  rateLimits: CollectorRateLimits;
  limits: {
    maxEventsPerRequest: number;
    maxEventBytes: number;
    /** Retry-After of a quota refusal: how often retention may free room. */
    quotaRetryAfterSeconds: number;
  };
  /**
   * The collector listener's penalty box, keyed by the request's client: a client that keeps
   * posting while told to wait is refused for a cool-down, here and (unless it is behind a
   * trusted proxy) on accept; the gateway and console listeners have boxes of their own.
   */
  penalties?: ClientPenalties;
}

const EVENT_PATH = '/_gateway/event';

/** Browsers may send any origin: the endpoint takes no credentials, so any origin may post. */
function corsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  reply.header('access-control-allow-origin', typeof origin === 'string' && origin !== 'null' ? origin : '*');
  reply.header('vary', 'Origin');
  reply.header('access-control-expose-headers', 'x-request-id');
}

/**
 * The collector listener (spec 4.3): POST /_gateway/event. The project is the one whose domains
 * include the Host header's name; the body is at most `bodyLimitBytes` (413 beyond), JSON
 * whatever the content type (navigator.sendBeacon sends text/plain); events are stored, with
 * their outbox rows, before the 202 answer. Limits, in the order they apply (docs/console-api.md,
 * "Limits"): a client in the listener's penalty box (429 for its cool-down), a refusal
 * remembered for the address or project (429 before the body is read), the
 * body size (413), the shape and the number of events (400), the rate budgets in events (429),
 * the size of each stored event (413), the project's stored-event quota (429).
 */
export function buildCollectorApp(
  base: Omit<AppOptions, 'sendError' | 'handleError'>,
  services: CollectorServices,
): FastifyInstance {
  const app = createApp({
    ...base,
    lenientJsonContentType: true,
    errors: COLLECTOR_ERROR_DOCS,
    // Refused before its Host named a project: no id.
    principal: (request) => (request.collectorProject as ResolvedProject | null | undefined)?.id,
    sendError: sendProblem,
    handleError: (error, _request, reply) => {
      if (error instanceof CollectorError) return sendCollectorError(reply, error);
      countRefusedBody(error);
      return undefined;
    },
  });
  // text/plain (sendBeacon) goes to the catch-all JSON parser too.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', (request, reply, done) => {
    corsHeaders(request, reply);
    done();
  });

  app.options(EVENT_PATH, async (request, reply) => {
    const requested = request.headers['access-control-request-headers'];
    const allowed =
      typeof requested === 'string' && /^[A-Za-z0-9_\-, ]{1,500}$/.test(requested) ? requested : 'content-type';
    return reply
      .code(204)
      .header('access-control-allow-methods', 'POST, OPTIONS')
      .header('access-control-allow-headers', allowed)
      .header('access-control-max-age', '86400')
      .send();
  });

  // The host is resolved before the body is read: an unknown host is a 404 whatever it sends.
  // A cached host is resolved without a promise: this runs for every request.
  app.decorateRequest('collectorProject', null as unknown as ResolvedProject);
  const resolveHost = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const boxedMs = services.penalties?.refusedForMs(request) ?? 0;
    if (boxedMs > 0) {
      collectorMetrics.rejected('address_penalty');
      if (services.penalties!.ownsConnection(request)) reply.header('connection', 'close');
      sendTooMany(reply, 'client_penalized', Math.ceil(boxedMs / 1000), penaltyMessage(boxedMs));
      return;
    }
    const host = hostnameOf(request.headers.host);
    const cached = host === undefined ? null : services.directory.cached(host);
    if (cached === undefined) {
      services.directory.resolve(host!).then((project) => attach(request, reply, project, done), done);
      return;
    }
    attach(request, reply, cached, done);
  };
  const attach = (
    request: FastifyRequest,
    reply: FastifyReply,
    project: ResolvedProject | null,
    done: (error?: Error) => void,
  ) => {
    if (!project) return done(new CollectorError('unknown_host'));
    request.collectorProject = project;
    // An address or project refused a moment ago is refused again before its body is read.
    // Answered here, not thrown: under a flood this is most requests, and an Error (its stack)
    // and Fastify's error path cost as much as the rest of the refusal.
    const blocked = services.rateLimits.blocked(project.id, request.ip);
    if (blocked) {
      collectorMetrics.rejected(blocked.scope === 'address' ? 'rate_limit_address' : 'rate_limit_project');
      // Only the address's own budget: a project's is spent by all of its clients together.
      const penalties = services.penalties;
      if (blocked.scope === 'address' && penalties?.ignoredRefusal(request) && penalties.ownsConnection(request))
        reply.header('connection', 'close');
      sendTooMany(reply, 'rate_limited', blocked.retryAfterSeconds, rateLimitMessage(blocked));
      return;
    }
    done();
  };

  const { limits } = services;
  app.post<{ Body: CollectBody }>(
    EVENT_PATH,
    { schema: { body: collectBodySchema(limits.maxEventsPerRequest) }, onRequest: resolveHost },
    async (request, reply) => {
      const project = request.collectorProject;
      const count = request.body.data_collection.events.length;
      const refusal = await services.rateLimits.consume(project.id, request.ip, count);
      if (refusal) {
        collectorMetrics.rejected(refusal.scope === 'address' ? 'rate_limit_address' : 'rate_limit_project', count);
        throw new CollectorError('rate_limited', {
          message: rateLimitMessage(refusal),
          headers: { 'retry-after': String(refusal.retryAfterSeconds) },
        });
      }
      const now = Date.now();
      let events;
      try {
        events = buildEvents(request.body, now, limits);
      } catch (error) {
        if (error instanceof CollectorError && error.code === 'event_too_large')
          collectorMetrics.rejected('event_too_large', count);
        throw error;
      }
      let outcome;
      try {
        outcome = await services.intake.submit({
          projectId: project.id,
          organizationId: project.organizationId,
          receivedAt: now,
          events,
          componentIds: project.componentIds,
        });
      } catch {
        throw new CollectorError('unavailable', { headers: { 'retry-after': '1' } });
      }
      if (outcome === 'quota') {
        collectorMetrics.rejected('quota', count);
        throw new CollectorError('quota_exceeded', {
          headers: { 'retry-after': String(limits.quotaRetryAfterSeconds) },
        });
      }
      collectorMetrics.accepted(count);
      return reply.code(202).send({ accepted: events.length, ids: events.map((e) => e.id) });
    },
  );
  return app;
}

function sendTooMany(
  reply: FastifyReply,
  code: Extract<CollectorErrorCode, 'rate_limited' | 'client_penalized'>,
  retryAfterSeconds: number,
  message: string,
): FastifyReply {
  reply.header('retry-after', String(retryAfterSeconds));
  return sendErrorAnswer(reply, COLLECTOR_ERRORS, code, message);
}

function penaltyMessage(boxedMs: number): string {
  return `This client address kept sending while told to wait; it is refused for ${Math.ceil(boxedMs / 1000)} s.`;
}

/** Refusals that Fastify raises before the handler runs, counted by the limit that made them. */
function countRefusedBody(error: unknown): void {
  const fastifyError = error as {
    code?: string;
    validation?: Array<{ keyword: string; instancePath: string }>;
  };
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') collectorMetrics.rejected('body_too_large');
  const first = fastifyError.validation?.[0];
  if (first?.keyword === 'maxItems' && first.instancePath === '/data_collection/events')
    collectorMetrics.rejected('too_many_events');
}
