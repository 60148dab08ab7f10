import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createApp, type AppOptions } from '../server/create-app.js';
import { ConsoleError, sendConsoleError, sendConsoleProblem } from '../console/console-error.js';
import { CollectBodySchema, type CollectBody } from './event-schema.js';
import { buildEvents, EventDataError } from './build-events.js';
import { hostnameOf, type ProjectDirectory, type ResolvedProject } from './project-directory.js';
import type { EventIntake } from './event-intake.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The project of the Host header, set before the body is read (collector listener only). */
    collectorProject: ResolvedProject;
  }
}

export interface CollectorServices {
  directory: ProjectDirectory;
  intake: EventIntake;
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
 * their outbox rows, before the 202 answer.
 */
export function buildCollectorApp(
  base: Omit<AppOptions, 'sendError' | 'handleError'>,
  services: CollectorServices,
): FastifyInstance {
  const app = createApp({
    ...base,
    lenientJsonContentType: true,
    sendError: sendConsoleProblem,
    handleError: (error, _request, reply) => {
      if (error instanceof ConsoleError) return sendConsoleError(reply, error.status, error.message, error.param);
      if (error instanceof EventDataError) return sendConsoleError(reply, 400, error.message, error.param);
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
  const resolveHost = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    const host = hostnameOf(request.headers.host);
    const cached = host === undefined ? null : services.directory.cached(host);
    if (cached === undefined) {
      services.directory.resolve(host!).then((project) => attach(request, project, done), done);
      return;
    }
    attach(request, cached, done);
  };
  const attach = (request: FastifyRequest, project: ResolvedProject | null, done: (error?: Error) => void) => {
    if (!project) return done(new ConsoleError(404, 'No project collects events for this host.'));
    request.collectorProject = project;
    done();
  };

  app.post<{ Body: CollectBody }>(
    EVENT_PATH,
    { schema: { body: CollectBodySchema }, onRequest: resolveHost },
    async (request, reply) => {
      const project = request.collectorProject;
      const now = Date.now();
      const events = buildEvents(request.body, now);
      try {
        await services.intake.submit({
          projectId: project.id,
          organizationId: project.organizationId,
          receivedAt: now,
          events,
          componentIds: project.componentIds,
        });
      } catch {
        reply.header('retry-after', '1');
        throw new ConsoleError(503, 'The events could not be stored; nothing was accepted. Retry.');
      }
      return reply.code(202).send({ accepted: events.length, ids: events.map((e) => e.id) });
    },
  );
  return app;
}
