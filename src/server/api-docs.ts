import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fastifySwagger, { type SwaggerOptions } from '@fastify/swagger';
import fastifySwaggerUi, { type FastifySwaggerUiOptions } from '@fastify/swagger-ui';

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
      'Manage an organization: gateway keys, usage and cost. Authenticate with a console token: `Authorization: Bearer <console token>`. Errors are `{error, message}`. The web console is served at `/` by this listener.',
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

/**
 * The OpenAPI 3.1 document of one listener, built by @fastify/swagger from the same TypeBox
 * schemas that validate requests, served at `/openapi.json`, with Swagger UI (bundled, no CDN)
 * at `/docs`. Must be registered before any route so that every route is collected.
 */
export function registerApiDocs(app: FastifyInstance, surface: DocumentedSurface, errors?: DocumentedErrors): void {
  const routes: RegisteredRoute[] = [];
  routesByApp.set(app, routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide);
    for (const method of methods) routes.push({ method: String(method), url: route.url, hidden });
  });

  const about = SURFACES[surface];
  // Called directly rather than through app.register: its onRoute hook must be in place before
  // the first route, and a surface may add routes to the root instance before plugins load.
  // It is a synchronous fastify-plugin (no encapsulation), so this is what register would do.
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
  fastifySwagger(app, swaggerOptions, (error) => {
    if (error) throw error;
  });
  // Called from a plugin of our own: registered as itself, it would check that @fastify/swagger
  // went through app.register, which it did not (see above).
  const uiOptions: FastifySwaggerUiOptions = {
    routePrefix: '/docs',
    // Swagger UI sets inline styles from script; everything else comes from this listener.
    staticCSP:
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
    uiConfig: { deepLinking: true, tryItOutEnabled: false },
    validatorUrl: false,
  };
  // Its types say callback-style; the function is async and never calls a callback.
  const swaggerUi = fastifySwaggerUi as unknown as FastifyPluginAsync<FastifySwaggerUiOptions>;
  app.register(async (docs) => swaggerUi(docs, uiOptions));
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
    async (_request, reply) => reply.header('cache-control', 'no-cache').send(app.swagger()),
  );
}
