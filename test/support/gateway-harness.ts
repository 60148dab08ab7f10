import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';
import pino from 'pino';
import pg from 'pg';
import { readSettings } from '../../src/config/settings.js';
import { startGateway, type RunningGateway } from '../../src/wiring/start.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { createConsoleToken, type ConsolePermission } from '../../src/store/console-tokens.js';

/**
 * Starts the real service in-process over real HTTPS (ports 0, a fresh data dir, a fresh
 * PostgreSQL schema when the store is postgres) and gives tests a small HTTPS client.
 */
export type StoreKind = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when GATEWAY_TEST_DATABASE_URL is set (.ci/run sets it). */
export function storeKinds(): StoreKind[] {
  return process.env.GATEWAY_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export interface HarnessOptions {
  store?: StoreKind;
  /** GATEWAY_CONFIG content (object, written as JSON). */
  config?: unknown;
  env?: Record<string, string>;
  /** Reuse an existing data dir / schema (restart tests, second instance). */
  dataDir?: string;
  schema?: string;
  /** The service's logger (tests that check what is logged); default: pino at LOG_LEVEL, silent. */
  logger?: pino.Logger;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface Harness {
  running: RunningGateway;
  dataDir: string;
  schema: string | undefined;
  ca: string;
  env: Record<string, string>;
  gateway(method: string, path: string, init?: RequestInit): Promise<HttpResult>;
  console(method: string, path: string, init?: RequestInit): Promise<HttpResult>;
  collector(method: string, path: string, init?: RequestInit): Promise<HttpResult>;
  /** Creates an organization and a console token for it, straight in the store. */
  organization(slug?: string, permission?: ConsolePermission): Promise<{ id: string; slug: string; token: string }>;
  /** Creates a gateway key through the console API. */
  createKey(
    org: { id: string; token: string },
    body?: Record<string, unknown>,
  ): Promise<{ id: string; key: string; [k: string]: unknown }>;
  stop(): Promise<void>;
}

export interface RequestInit {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  token?: string;
}

/**
 * Calls over `dispatcher` (trusting the service's CA): `init.token` as a bearer token, `init.body`
 * as JSON; the answer's body as text and, when it parses, as JSON.
 */
export function httpCaller(dispatcher: Dispatcher) {
  return async function call(base: string, method: string, path: string, init: RequestInit = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await request(base + path, { method: method as 'GET', headers, body, dispatcher });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  };
}

export async function dropSchema(schema: string): Promise<void> {
  const url = process.env.GATEWAY_TEST_DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const storeKind = options.store ?? 'sqlite';
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const schema = storeKind === 'postgres' ? (options.schema ?? `t_${randomBytes(6).toString('hex')}`) : undefined;
  const env: Record<string, string> = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests claim local names (*.example.test, localhost) without proving control; the
    // production-mode tests pass GATEWAY_ENV=production.
    GATEWAY_ENV: 'development',
    ...(options.env ?? {}),
  };
  if (storeKind === 'postgres') {
    env.DATABASE_URL = process.env.GATEWAY_TEST_DATABASE_URL!;
    env.DATABASE_SCHEMA = schema!;
  }
  if (options.config !== undefined) {
    const file = join(dataDir, 'gateway-config.json');
    writeFileSync(file, JSON.stringify(options.config));
    env.GATEWAY_CONFIG = file;
  }
  const settings = readSettings({ ...env });
  const logger = options.logger ?? pino({ level: env.LOG_LEVEL ?? 'silent' });
  const running = await startGateway(settings, logger, { ...process.env, ...env });
  const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const dispatcher = new Agent({ connect: { ca }, keepAliveTimeout: 1000 });

  const call = httpCaller(dispatcher);

  const harness: Harness = {
    running,
    dataDir,
    schema,
    ca,
    env,
    gateway: (m, p, i) => call(running.urls.gateway, m, p, i),
    console: (m, p, i) => call(running.urls.console, m, p, i),
    collector: (m, p, i) => call(running.urls.collector, m, p, i),
    async organization(slug = `org-${randomBytes(4).toString('hex')}`, permission: ConsolePermission = 'admin') {
      const { organization } = await ensureOrganization(running.store, slug, slug);
      const { secret } = await createConsoleToken(running.store, {
        organizationId: organization.id,
        name: 'test',
        permission,
      });
      return { id: organization.id, slug, token: secret };
    },
    async createKey(org, body = { name: 'test key' }) {
      const result = await call(running.urls.console, 'POST', `/v1/organizations/${org.id}/api_keys`, {
        token: org.token,
        body,
      });
      if (result.status !== 201) throw new Error(`createKey failed: ${result.status} ${result.text}`);
      return result.json;
    },
    async stop() {
      await running.stop();
      await dispatcher.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (schema && !options.schema) await dropSchema(schema);
    },
  };
  return harness;
}
