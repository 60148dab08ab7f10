import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccessLogSettings } from '../config/access-log-settings.js';
import { HEALTH_ROUTES } from './health-routes.js';

/** What the metering recorded of a request (a usage row has these members), read by the access log. */
export interface MeteredRequest {
  model: string;
  provider: string;
  input_tokens: number;
  output_tokens: number;
  error_code: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The code of the error envelope the request was answered with; null when it was not refused. */
    errorCode: string | null;
    /** The request's usage row, once metered; null when it has none (not a model call, or refused before admission). */
    metered: MeteredRequest | null;
  }
}

/** Who made a request, by id (a gateway key, a console token, a collector project); never a secret. */
export type Principal = (request: FastifyRequest) => string | null | undefined;

/**
 * Called once per request when its connection's response closes: its status (499: the client
 * left), duration and route template (undefined: no route matched; read once by the caller, as
 * Fastify's `routeOptions` builds a new object on every read).
 */
export type RequestEnd = (
  request: FastifyRequest,
  status: number,
  latencyMs: number,
  route: string | undefined,
) => void;

/** Declared members, not properties added per request: every request object keeps one shape. */
export function decorateAccessFields(app: FastifyInstance): void {
  app.decorateRequest('errorCode', null);
  app.decorateRequest('metered', null);
}

/** Where an error envelope is written: the code the access log and the stored refusal carry. */
export function noteErrorCode(reply: FastifyReply, code: string): void {
  reply.request.errorCode = code;
}

/** Scrapes, health probes and API documents: polled by machines, at debug so they do not drown the requests. */
const QUIET_ROUTES = new Set(['/metrics', ...HEALTH_ROUTES, '/openapi.json', '/docs', '/docs/*', '/docs/static/*']);

/** A client's model name is any string it sent; the log keeps enough of it to read. */
const MAX_MODEL_CHARS = 200;

/**
 * The access log of one listener (docs/configuration.md, "Access log"): one pino line per request,
 * refusals included, from the same end of the response the request metrics observe. The
 * listener's constant fields are bound once in a child logger. Only ids, names and counts are
 * written: never a key, a token, a header or a body.
 */
export function accessLog(
  logger: Logger,
  settings: AccessLogSettings,
  surface: string,
  principal?: Principal,
): RequestEnd | undefined {
  if (settings.mode === 'off') return undefined;
  // The line is flat (ids, names, counts): the root logger's redaction paths, all of nested
  // members, cannot match it, and running them cost a redaction call per member and per line.
  const lines = logger.child({ log: 'access', surface }, { redact: [] });
  const level = settings.level;
  const successShare = settings.mode === 'all' ? settings.sample : 0;
  return (request, status, latencyMs, route) => {
    if (status < 400 && (successShare === 0 || (successShare < 1 && Math.random() >= successShare))) return;
    const lineLevel = route !== undefined && QUIET_ROUTES.has(route) ? 'debug' : level;
    if (!lines.isLevelEnabled(lineLevel)) return;
    const metered = request.metered;
    lines[lineLevel](
      {
        reqId: request.id,
        method: request.method,
        route: route ?? '(unmatched)',
        status,
        code: request.errorCode ?? metered?.error_code ?? null,
        key: principal?.(request) ?? null,
        model: metered ? metered.model : requestedModel(request),
        provider: metered ? metered.provider : null,
        ms: Math.round(latencyMs),
        inputTokens: metered ? metered.input_tokens : null,
        outputTokens: metered ? metered.output_tokens : null,
      },
      'request',
    );
  };
}

/** The `model` member of a parsed JSON body, shortened; null without one (a refusal before the body was read). */
export function requestedModel(request: FastifyRequest): string | null {
  const body = request.body as { model?: unknown } | null | undefined;
  const model = typeof body === 'object' && body !== null ? body.model : undefined;
  if (typeof model !== 'string') return null;
  return model.length > MAX_MODEL_CHARS ? model.slice(0, MAX_MODEL_CHARS) : model;
}
