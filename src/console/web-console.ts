import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

/** `dist/web`, built by `npm run build:web` (part of `prepare`); the same path from src/ and dist/. */
export const WEB_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

/** Paths the single-page app routes in the browser; a reload on any of them gets index.html. */
export const CLIENT_ROUTES = [
  '/',
  '/sign-in',
  '/keys',
  '/usage',
  '/savings',
  '/logs',
  '/projects',
  '/projects/:projectId',
  '/alerts',
  '/tools',
  '/tokens',
  '/provider-keys',
  '/sessions',
  '/sessions/:sessionId',
  '/shared-session',
  '/members',
  '/invite',
];

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The web console (docs/web-console.md), served by the console listener: hashed assets under
 * `/assets/` are cached for a year (their names change with their content), index.html is
 * revalidated on every load. Nothing comes from a CDN.
 */
export function registerWebConsole(app: FastifyInstance, webDir = WEB_DIR): void {
  const index = join(webDir, 'index.html');
  if (!existsSync(index)) {
    for (const url of CLIENT_ROUTES) {
      app.get(url, { schema: { hide: true } }, async (_request, reply) =>
        reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send(`The web console is not built: run "npm run build:web" (it writes ${webDir}) and restart.\n`),
      );
    }
    return;
  }
  app.register(fastifyStatic, {
    root: webDir,
    prefix: '/',
    wildcard: false,
    index: false,
    cacheControl: false,
    setHeaders(res, path) {
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader(
        'cache-control',
        path.includes(`${join('/', 'assets', '/')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
      if (path.endsWith('.html')) setPageHeaders(res);
    },
  });
  app.register(async (pages) => {
    for (const url of CLIENT_ROUTES) {
      pages.get(url, { schema: { hide: true } }, async (_request, reply: FastifyReply) => {
        setPageHeaders(reply.raw);
        return reply.header('cache-control', 'no-cache').sendFile('index.html', webDir, { cacheControl: false });
      });
    }
  });
}

function setPageHeaders(res: { setHeader(name: string, value: string): unknown }): void {
  res.setHeader('content-security-policy', CSP);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-content-type-options', 'nosniff');
}
