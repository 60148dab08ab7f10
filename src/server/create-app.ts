import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Server as HttpsServer } from 'node:https';
import { registerApiDocs, type DocumentedErrors, type DocumentedSurface } from './api-docs.js';
import { registerHttpMetrics, registerMetricsRoute } from './http-metrics.js';
import { deferredChildLogger } from './deferred-child-logger.js';
import { randomHex } from './random-ids.js';
import { CONNECTION_DEFAULTS, type ConnectionSettings } from '../config/connection-settings.js';
import { connectionsTimedOut } from '../metrics/connection-metrics.js';
import { enforceBodyDeadline } from './request-body-deadline.js';
import { DEFAULT_JSON_MAX_DEPTH, registerJsonBodyParser } from './json-body.js';
import { lazyValidatorFactory } from './lazy-validators.js';
import { lazySerializerFactory } from './lazy-serializers.js';
import { answerClosedClient, isClientConnectionError } from './client-connection.js';
import type { HttpProblem } from './http-problem.js';
import type { TrustedProxy } from './trusted-proxies.js';
import { accessLog, decorateAccessFields, type Principal } from './access-log.js';
import type { AccessLogSettings } from '../config/access-log-settings.js';
import { registerHealthRoutes, type ReadinessProbe } from './health-routes.js';

export interface AppOptions {
  tls: { cert: string; key: string };
  logger: Logger;
  bodyLimitBytes: number;
  /** Writes an error in this surface's envelope. */
  sendError: (reply: FastifyReply, problem: HttpProblem) => FastifyReply;
  /** Handles the surface's own error classes; returns undefined to fall back to the generic mapping. */
  handleError?: (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
  /** Accept a JSON body whatever its content type (curl -d sends form encoding by default). */
  lenientJsonContentType?: boolean;
  /** Deepest nesting of arrays and objects a JSON body may have (GATEWAY_JSON_MAX_DEPTH); deeper → 400. */
  jsonMaxDepth?: number;
  /** Which listener this is: names its OpenAPI document (`/openapi.json`, `/docs`) and labels its metrics. */
  surface?: DocumentedSurface;
  /** The surface's error registry, published in its OpenAPI document. */
  errors?: DocumentedErrors;
  /** `/metrics` on this listener: served unless `public` is false (docs/configuration.md, "Metrics"). */
  metrics?: { public: boolean; token?: string | undefined };
  /** Body of an answer given before any request exists (headers too large, unparsable request line), in this surface's envelope. */
  clientErrorBody?: (status: number, message: string) => unknown;
  /** Header, body, handshake and keep-alive timeouts (docs/configuration.md, "Connections"); defaults when absent. */
  connections?: ConnectionSettings;
  /**
   * Peers whose `X-Forwarded-For` is believed (GATEWAY_TRUSTED_PROXIES): `request.ip` is then the
   * rightmost hop that is not a trusted proxy. Absent: `request.ip` is the socket's peer.
   */
  trustedProxy?: TrustedProxy | undefined;
  /** One line per request on a listener with a surface (server/access-log.ts); absent: none. */
  accessLog?: AccessLogSettings;
  /** The id the access log gives for who called (the surface's credential: key, token, project). */
  principal?: Principal;
  /** `/healthz` and `/readyz` on this listener, `/readyz` answering from this probe (docs/configuration.md, "Health probes"). */
  readiness?: ReadinessProbe;
}

/** Largest request head (request line and headers) a listener reads; larger → 431. Node's default, made explicit. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** A client-facing failure before or outside a handler, in surface-neutral terms. */
export type { HttpProblem } from './http-problem.js';

/**
 * One Fastify instance per surface, over HTTPS. Validation is strict: no type coercion and no
 * silent removal of unknown fields, so a wrong type or an unexpected field is a 400 naming it.
 */
/** Fastify's `ajv` option of every app (lazy-validators.ts compiles with it). */
export const AJV_OPTIONS = {
  customOptions: {
    removeAdditional: false,
    coerceTypes: false,
    useDefaults: true,
    allErrors: false,
    strict: false,
  },
} as const;

export function createApp(options: AppOptions): FastifyInstance {
  const connections = options.connections ?? CONNECTION_DEFAULTS;
  // The listener without a documented surface is the separate metrics listener.
  const connectionLabel = options.surface ?? 'metrics';
  const headersTimedOut = connectionsTimedOut.labels(connectionLabel, 'headers');
  const checkIntervalMs = connectionCheckInterval(connections);
  const clientErrorAnswers = clientErrorAnswerCache(options.clientErrorBody);
  const app = Fastify({
    https: {
      cert: options.tls.cert,
      key: options.tls.key,
      maxHeaderSize: MAX_HEADER_BYTES,
      // From the handshake's end (or a later request's first byte) to the end of the headers,
      // however slowly they trickle in; checked by Node every `connectionsCheckingInterval`.
      headersTimeout: connections.headersTimeoutMs,
      // The body has a minimum rate instead (request-body-deadline.ts); responses are never timed.
      requestTimeout: 0,
      connectionsCheckingInterval: checkIntervalMs,
      // A backstop: the listener's own deadline covers the handshake from the accept on.
      handshakeTimeout: connections.handshakeTimeoutMs,
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Duplex) => {
      if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') headersTimedOut.inc();
      answerClientError(error, socket, clientErrorAnswers);
    },
    loggerInstance: options.logger,
    // One line per request is written by the access log instead (access-log.ts); Fastify's own
    // two lines per request would double the logging cost on the hot path.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: deferredChildLogger,
    bodyLimit: options.bodyLimitBytes,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : `req_${randomHex(16)}`;
    },
    // Route schemas compiled on each route's first request (lazy-validators.ts), response schemas
    // on their first answer (lazy-serializers.ts).
    schemaController: {
      compilersFactory: { buildValidator: lazyValidatorFactory(), buildSerializer: lazySerializerFactory() },
    },
    ajv: AJV_OPTIONS,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    keepAliveTimeout: connections.keepAliveTimeoutMs,
    requestTimeout: 0,
    return503OnClosing: false,
    ...(options.trustedProxy ? { trustProxy: options.trustedProxy } : {}),
  }) as unknown as FastifyInstance;
  const bodyTimedOut = connectionsTimedOut.labels(connectionLabel, 'body');
  enforceBodyDeadline(app.server as unknown as HttpsServer, {
    bodyTimeoutMs: connections.bodyTimeoutMs,
    bodyMinBytesPerSecond: connections.bodyMinBytesPerSecond,
    checkIntervalMs,
    onTimeout: () => bodyTimedOut.inc(),
  });

  registerJsonBodyParser(app, {
    bodyLimitBytes: options.bodyLimitBytes,
    maxDepth: options.jsonMaxDepth ?? DEFAULT_JSON_MAX_DEPTH,
    lenient: options.lenientJsonContentType === true,
  });

  // Callback style: no promise per request on the hot path.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  decorateAccessFields(app);
  if (options.surface) {
    const requestEnd = options.accessLog
      ? accessLog(options.logger, options.accessLog, options.surface, options.principal)
      : undefined;
    registerHttpMetrics(app, options.surface, requestEnd);
    registerApiDocs(app, options.surface, options.errors);
    const metrics = options.metrics;
    if (metrics?.public !== false) registerMetricsRoute(app, { token: metrics?.token });
  }
  if (options.readiness) registerHealthRoutes(app, options.readiness);

  app.setNotFoundHandler((request, reply) =>
    options.sendError(reply, {
      status: 404,
      kind: 'not_found',
      message: `No route ${request.method} ${request.url.split('?')[0]}.`,
      param: null,
    }),
  );

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (isClientConnectionError(error, request)) return answerClosedClient(request, reply, options.sendError);
    const handled = options.handleError?.(error, request, reply);
    if (handled) return handled;
    const problem = toProblem(error);
    if (problem.kind === 'internal') request.log.error({ err: error, reqId: request.id }, 'unhandled error');
    return options.sendError(reply, problem);
  });
  return app;
}

/**
 * How often header and body deadlines are checked: a tenth of the shorter one, so a deadline is
 * enforced within 10 % of its value, between 10 ms (short test timeouts) and MAX_CHECK_INTERVAL_MS.
 */
function connectionCheckInterval(connections: ConnectionSettings): number {
  const shorter = Math.min(connections.headersTimeoutMs, connections.bodyTimeoutMs);
  return Math.min(MAX_CHECK_INTERVAL_MS, Math.max(10, Math.round(shorter / 10)));
}

/**
 * Every check cuts, in one go, all the connections whose deadline passed since the last one:
 * under slowloris that is the attack's churn times the interval (5,000 connections cut every
 * 10 s: 500 a check at 1 s, each a 408 encrypted and written, a TLS shutdown, then the
 * replacement handshakes arriving together), a stall of the event loop every second that the
 * normal clients' p99 saw. Ten checks a second cut them in batches ten times smaller; a check
 * is Node walking its connection list in C++ (well under a millisecond for 10,000 connections).
 */
const MAX_CHECK_INTERVAL_MS = 100;

/**
 * Fastify's default writes its answer and destroys the socket at once, which on a TLS socket
 * discards the still-unencrypted answer: a client with 64 KB of headers saw the connection drop
 * instead of a 431. `end` flushes the answer, then closes.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex, answers: ClientErrorAnswers): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // The rest of an oversized head is still arriving: read and drop it (the HTTP parser is gone),
  // else the server's own data handler tears the connection down before the answer is flushed.
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.end(answers(status));
  // A client that never reads its answer does not keep the socket. The timer goes with the
  // socket: under slowloris hundreds are cut a second, and each timer would keep its socket
  // (TLS state, parser, buffers) reachable for 5 s after the client left.
  const giveUp = setTimeout(() => socket.destroy(), 5_000).unref();
  socket.once('close', () => clearTimeout(giveUp));
}

type ClientErrorAnswers = (status: 400 | 408 | 431) => string;

/**
 * The whole answer (status line, headers, body) for each of the three statuses, built once per
 * listener: under slowloris hundreds of connections a second are cut with the same 408.
 */
function clientErrorAnswerCache(body: AppOptions['clientErrorBody']): ClientErrorAnswers {
  const messages = {
    400: 'The request could not be parsed as HTTP.',
    408: 'The request did not arrive in time.',
    431: `The request headers are larger than ${MAX_HEADER_BYTES / 1024} KB.`,
  };
  const built = new Map<number, string>();
  return (status) => {
    let answer = built.get(status);
    if (answer === undefined) {
      const message = messages[status];
      const text = JSON.stringify(body ? body(status, message) : { error: STATUS_CODES[status], message });
      answer = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
      built.set(status, answer);
    }
    return answer;
  };
}

export function toProblem(error: FastifyError): HttpProblem {
  if (error.validation && error.validation.length > 0) {
    const first = error.validation[0]!;
    const base = error.validationContext === 'body' ? '' : `${error.validationContext ?? ''}`;
    let param = jsonPointerToParam(first.instancePath);
    const params = first.params as Record<string, unknown>;
    if (first.keyword === 'required' && typeof params.missingProperty === 'string') {
      param = param ? `${param}.${params.missingProperty}` : params.missingProperty;
    }
    if (first.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      param = param ? `${param}.${params.additionalProperty}` : params.additionalProperty;
      return { status: 400, kind: 'validation', message: `Unknown field "${param}".`, param };
    }
    const where = param || base || 'body';
    return {
      status: 400,
      kind: 'validation',
      message: `Invalid ${where}: ${first.message ?? 'invalid value'}.`,
      param: param || null,
    };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        status: 400,
        kind: 'invalid_json',
        message: error.message || 'The request body is not valid JSON.',
        param: null,
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, kind: 'too_large', message: error.message, param: null };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        kind: 'unsupported_media_type',
        message: 'The request body must be application/json.',
        param: null,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        status: 400,
        kind: 'validation',
        message: 'The Content-Length header does not match the body.',
        param: null,
      };
    // PostgreSQL refuses text it cannot store (a NUL character, \u0000) with these SQLSTATEs: the
    // value came from the request (a path parameter, a query or a body field), so it is a 400.
    case '22021':
    case '22P05':
      return {
        status: 400,
        kind: 'validation',
        message: 'The request contains a character that cannot be stored (NUL, \\u0000).',
        param: null,
      };
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return {
      status: 400,
      kind: 'invalid_json',
      message: `The request body is not valid JSON: ${error.message}`,
      param: null,
    };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, kind: 'validation', message: error.message, param: null };
  }
  return { status: 500, kind: 'internal', message: 'An internal error occurred.', param: null };
}

/** `/messages/0/role` → `messages[0].role`, the way OpenAI names params. */
export function jsonPointerToParam(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment),
      '',
    );
}
