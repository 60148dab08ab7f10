import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
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
  const write = lineWriter(lines);
  const level = settings.level;
  const successShare = settings.mode === 'all' ? settings.sample : 0;
  return (request, status, latencyMs, route) => {
    if (status < 400 && (successShare === 0 || (successShare < 1 && Math.random() >= successShare))) return;
    const lineLevel = route !== undefined && QUIET_ROUTES.has(route) ? 'debug' : level;
    if (!lines.isLevelEnabled(lineLevel)) return;
    const metered = request.metered;
    write(lineLevel, {
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
    });
  };
}

/** The members of one access line, in the order they are written. */
export interface AccessFields {
  reqId: string;
  method: string;
  route: string;
  status: number;
  code: string | null;
  key: string | null;
  model: string | null;
  provider: string | null;
  ms: number;
  inputTokens: number | null;
  outputTokens: number | null;
}

type LineWriter = (level: string, fields: AccessFields) => void;

interface PinoInternals {
  [pino.symbols.streamSym]?: { write(line: string): unknown; [pino.symbols.needsMetadataGsym]?: unknown };
  [pino.symbols.timeSym]?: () => string;
  [pino.symbols.chindingsSym]?: string;
  [pino.symbols.lsCacheSym]?: Record<number, string>;
  [pino.symbols.endSym]?: string;
  [pino.symbols.messageKeySym]?: string;
  [pino.symbols.nestedKeySym]?: unknown;
  [pino.symbols.mixinSym]?: unknown;
  [pino.symbols.hooksSym]?: { logMethod?: unknown; streamWrite?: unknown };
  [pino.symbols.formattersSym]?: { log?: unknown };
  [pino.symbols.serializersSym]?: Record<string, unknown>;
}

const json = JSON.stringify;
/** pino writes a number that is not finite as null. */
const num = (value: number | null): string => (value !== null && Number.isFinite(value) ? String(value) : 'null');

/**
 * Writes the line pino would write for `logger[level](fields, 'request')` (the same members in
 * the same order: test/server/access-log.test.ts compares the two) into the logger's own
 * destination, from pino's own level prefix, time, bindings and line end. pino's generic
 * serialisation (each member looked at, escaped and joined) was the larger part of the access
 * log's ~9 % of a JSON request's CPU (bench/README.md, issue 29); this line's members are known,
 * so it is one template. A logger whose mixin, hooks, formatters, serializers, nested key or
 * destination change what pino writes keeps pino's own path.
 */
export function lineWriter(logger: Logger): LineWriter {
  const internals = logger as unknown as PinoInternals;
  const stream = internals[pino.symbols.streamSym];
  const time = internals[pino.symbols.timeSym];
  const bindings = internals[pino.symbols.chindingsSym];
  const levelPrefixes = internals[pino.symbols.lsCacheSym];
  const end = internals[pino.symbols.endSym];
  const messageKey = internals[pino.symbols.messageKeySym];
  const hooks = internals[pino.symbols.hooksSym];
  const serializers = internals[pino.symbols.serializersSym] ?? {};
  const generic: LineWriter = (level, fields) => logger[level as pino.Level](fields, 'request');
  const plain =
    stream !== undefined &&
    typeof stream.write === 'function' &&
    !stream[pino.symbols.needsMetadataGsym] &&
    typeof time === 'function' &&
    typeof bindings === 'string' &&
    levelPrefixes !== undefined &&
    typeof end === 'string' &&
    typeof messageKey === 'string' &&
    !internals[pino.symbols.nestedKeySym] &&
    !internals[pino.symbols.mixinSym] &&
    !hooks?.logMethod &&
    !hooks?.streamWrite &&
    !internals[pino.symbols.formattersSym]?.log &&
    Object.keys(serializers).every((name) => name === 'err');
  if (!plain) return generic;
  const levels = logger.levels.values;
  const message = `,${json(messageKey)}:"request"${end}`;
  return (level, f) => {
    const prefix = levelPrefixes[levels[level]!];
    if (prefix === undefined) return generic(level, f);
    stream.write(
      `${prefix}${time()}${bindings},"reqId":${json(f.reqId)},"method":${json(f.method)}` +
        `,"route":${json(f.route)},"status":${num(f.status)},"code":${json(f.code)},"key":${json(f.key)}` +
        `,"model":${json(f.model)},"provider":${json(f.provider)},"ms":${num(f.ms)}` +
        `,"inputTokens":${num(f.inputTokens)},"outputTokens":${num(f.outputTokens)}${message}`,
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
