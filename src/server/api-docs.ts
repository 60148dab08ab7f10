import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

export type DocumentedSurface = 'gateway' | 'console' | 'collector';

export interface RegisteredRoute {
  method: string;
  url: string;
  hidden: boolean;
}

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const SURFACES: Record<DocumentedSurface, { title: string; description: string; bearer: string }> = {
  gateway: {
    title: 'LLM gateway API',
    description:
      'OpenAI-compatible model endpoints. Authenticate with a gateway key: `Authorization: Bearer <gateway key>`. Errors use the `{error: {message, type, param, code}}` envelope (docs/errors.md).',
    bearer: 'A gateway API key created in the console.',
  },
  console: {
    title: 'Console API',
    description:
      'Manage an organization: gateway keys, usage and cost. Authenticate with a console token: `Authorization: Bearer <console token>`. Errors are `{error, code, message}` (docs/errors.md). The web console is served at `/` by this listener.',
    bearer: 'A console token (`bin/gateway admin bootstrap` prints the first one).',
  },
  collector: {
    title: 'Collector API',
    description: 'Analytics event ingestion.',
    bearer: 'A project or gateway credential, as each route states.',
  },
};

/**
 * A surface's error registry as the OpenAPI document shows it: a JSON Schema of the error
 * envelope, under `components.schemas[name]`, whose code member lists every code the surface
 * emits, each with its status and meaning (test/server/error-registry.test.ts).
 */
export interface DocumentedErrors {
  name: string;
  schema: Record<string, unknown>;
}

const routesByApp = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on `app` (HEAD twins included) — for tests that compare it with the document. */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  return routesByApp.get(app) ?? [];
}

/** What a route gives the document (what @fastify/swagger reads of a route's options). */
type DocumentedRoute = Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'> & { links?: unknown };

/** The routes that stand in for Swagger UI on the listener; its own routes live in the documentation app. */
const DOCS_PREFIX = '/docs';
const isDocsRoute = (url: string) => url === DOCS_PREFIX || url.startsWith(`${DOCS_PREFIX}/`);

/** Set by the documentation app on a path it does not serve (never sent to a client). */
const NOT_DOCUMENTATION = 'x-not-documentation';

/** Headers of the documentation app's answer that are the listener's own business. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);

/**
 * The OpenAPI 3.1 document of one listener, built by @fastify/swagger from the same TypeBox
 * schemas that validate requests, served at `/openapi.json`, with Swagger UI (bundled, no CDN)
 * at `/docs`. Must be registered before any route so that every route is collected.
 *
 * Loaded on first use: the listener records its routes, and the first request for the document
 * or the UI builds a documentation app of its own (@fastify/swagger, Swagger UI and its static
 * files, the same routes without handlers) that answers both from then on. A process whose
 * documentation nobody reads never loads them (~450 KB of modules per process, ~2 MB of heap).
 */
export function registerApiDocs(app: FastifyInstance, surface: DocumentedSurface, errors?: DocumentedErrors): void {
  const routes: RegisteredRoute[] = [];
  const documented: DocumentedRoute[] = [];
  routesByApp.set(app, routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide);
    for (const method of methods) routes.push({ method: String(method), url: route.url, hidden });
    // As @fastify/swagger collects them: HEAD twins are left out.
    if (route.method === 'HEAD' || isDocsRoute(route.url)) return;
    const { method, url, schema, config } = route;
    documented.push({ method, url, schema, config, links: (route as { links?: unknown }).links });
  });

  let docsApp: Promise<FastifyInstance> | undefined;
  const docs = () =>
    (docsApp ??= buildDocsApp(app, surface, errors, documented).catch((error: unknown) => {
      docsApp = undefined;
      throw error;
    }));

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This OpenAPI 3.1 document',
        description: 'A rendered reference is at `/docs`.',
        tags: ['operations'],
        security: [],
      },
    },
    async (_request, reply) => reply.header('cache-control', 'no-cache').send((await docs()).swagger()),
  );
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer = await (
      await docs()
    ).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: request.headers,
    });
    // Not a documentation path: the listener's own 404, in its surface's envelope.
    if (answer.headers[NOT_DOCUMENTATION] !== undefined) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers))
      if (!HOP_BY_HOP.has(name) && value !== undefined) reply.header(name, value);
    reply.code(answer.statusCode);
    return answer.rawPayload.length > 0 ? reply.send(answer.rawPayload) : reply.send();
  };
  app.get(DOCS_PREFIX, { schema: { hide: true } }, forward);
  app.get(`${DOCS_PREFIX}/*`, { schema: { hide: true } }, forward);
}

/** The documentation app of a listener: the document and Swagger UI over `routes`, never listening. */
async function buildDocsApp(
  app: FastifyInstance,
  surface: DocumentedSurface,
  errors: DocumentedErrors | undefined,
  routes: readonly DocumentedRoute[],
): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: fastifySwagger }, { default: fastifySwaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  const docs = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  docs.setNotFoundHandler((_request, reply) => reply.code(404).header(NOT_DOCUMENTATION, '1').send());
  // Its routes are never called: nothing to validate or serialize.
  docs.setValidatorCompiler(() => () => true);
  docs.setSerializerCompiler(() => (data) => JSON.stringify(data));
  for (const schema of Object.values(app.getSchemas())) docs.addSchema(schema);

  const about = SURFACES[surface];
  const swaggerOptions: SwaggerOptions = {
    openapi: {
      openapi: '3.1.0',
      info: { title: about.title, description: about.description, version: VERSION },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: about.bearer },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when it is set.' },
        },
        ...(errors ? { schemas: { [errors.name]: errors.schema } } : {}),
      },
      security: [{ bearer: [] }],
    },
  };
  await docs.register(fastifySwagger, swaggerOptions);
  const uiOptions: FastifySwaggerUiOptions = {
    routePrefix: DOCS_PREFIX,
    // Swagger UI sets inline styles from script; everything else comes from this listener.
    staticCSP:
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
    uiConfig: { deepLinking: true, tryItOutEnabled: false },
    validatorUrl: false,
  };
  await docs.register(fastifySwaggerUi, uiOptions);
  const handler = () => undefined;
  for (const route of routes) docs.route({ ...route, handler } as RouteOptions);
  await docs.ready();
  return docs;
}
