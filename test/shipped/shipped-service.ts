import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { dropSchema, type StoreKind } from '../support/gateway-harness.js';
import { buildDist, httpsClient, runCli, startServe, type HttpsResult, type ServeProcess } from '../cli/cli-process.js';

/**
 * The built artifact as an operator runs it: `npm start`'s command line (package.json's start
 * script, `bin/gateway serve` on dist/bundle/), a fresh data dir, configured only through the
 * variables README and docs/configuration.md document, the first console token printed by
 * `bin/gateway admin bootstrap`, clients trusting the generated CA (`tls/ca.pem`).
 */
export type Listener = 'gateway' | 'console' | 'collector';
export const LISTENERS: readonly Listener[] = ['gateway', 'console', 'collector'];

export interface ShippedOptions {
  store?: StoreKind;
  /** GATEWAY_CONFIG: an object (written as JSON), or `{ yaml }` text (written to a .yaml file). */
  config?: unknown;
  env?: Record<string, string>;
}

export interface CallInit {
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

export interface ShippedService {
  serve: ServeProcess;
  env: Record<string, string>;
  dataDir: string;
  ca: string;
  /** The organization and console token `bin/gateway admin bootstrap` printed. */
  org: { id: string; slug: string; token: string };
  call(listener: Listener, method: string, path: string, init?: CallInit): Promise<HttpsResult>;
  /** A gateway key made through the console API. */
  createKey(body?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  /** stderr lines logged at error level or above: each one is a request that failed on the server. */
  errorLines(): string[];
  /** SIGTERM; resolves with how the process ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Pino's `error` level: an unhandled exception in a handler is logged at it, with its stack. */
const PINO_ERROR = 50;

export async function startShipped(options: ShippedOptions = {}): Promise<ShippedService> {
  buildDist();
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-shipped-'));
  const schema = options.store === 'postgres' ? `t_shipped_${randomBytes(5).toString('hex')}` : undefined;
  const env: Record<string, string> = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    LOG_LEVEL: 'warn',
    ...(schema ? { DATABASE_URL: process.env.GATEWAY_TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : {}),
    ...(options.env ?? {}),
  };
  if (options.config !== undefined) {
    const yaml = (options.config as { yaml?: unknown }).yaml;
    const file = join(dataDir, typeof yaml === 'string' ? 'gateway.yaml' : 'gateway.json');
    writeFileSync(file, typeof yaml === 'string' ? yaml : JSON.stringify(options.config));
    env.GATEWAY_CONFIG = file;
  }
  const cleanUp = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema);
  };
  let serve: ServeProcess;
  try {
    serve = await startServe('start', env);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const ca = readFileSync(join(dataDir, 'tls', 'ca.pem'), 'utf8');
  const client = httpsClient(ca);
  const stop = async () => {
    const stopped = await serve.stop();
    await client.close();
    await cleanUp();
    return { code: stopped.code, signal: stopped.signal };
  };
  try {
    const bootstrap = await runCli('bin', ['admin', 'bootstrap', '--org', 'shipped', '--name', 'Shipped'], env);
    if (bootstrap.status !== 0) throw new Error(`admin bootstrap failed (${bootstrap.status}): ${bootstrap.stderr}`);
    const printed = JSON.parse(bootstrap.stdout.trim()) as {
      organization_id: string;
      organization_slug: string;
      console_token: string;
    };
    const org = { id: printed.organization_id, slug: printed.organization_slug, token: printed.console_token };
    const call = (listener: Listener, method: string, path: string, init: CallInit = {}) =>
      client.call(`${serve.urls[listener]}${path}`, method, init);
    return {
      serve,
      env,
      dataDir,
      ca,
      org,
      call,
      async createKey(body = { name: 'shipped key' }) {
        const created = await call('console', 'POST', `/v1/organizations/${org.id}/api_keys`, {
          token: org.token,
          body,
        });
        if (created.status !== 201) throw new Error(`creating a key failed: ${created.status} ${created.text}`);
        return { id: created.json.id as string, key: created.json.key as string };
      },
      errorLines: () =>
        serve
          .stderr()
          .split('\n')
          .filter((line) => {
            try {
              return (JSON.parse(line) as { level?: number }).level! >= PINO_ERROR;
            } catch {
              // Not pino's: a crash's own text. Node's warnings, `(node:PID) …`, are not failures.
              return line.trim() !== '' && !line.startsWith('(node:');
            }
          }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
