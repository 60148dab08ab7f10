import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from 'undici';
import { httpCaller, type HttpResult, type RequestInit } from './gateway-harness.js';

/**
 * The service as separate processes (`node --import tsx test/support/gateway-process.ts`, which
 * runs `serve`),
 * for tests about several instances sharing one PostgreSQL database. Each child gets its own
 * data dir (so its own certificate: every child has its own trusting client here).
 */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENTRY = join(REPO_ROOT, 'test', 'support', 'gateway-process.ts');

export interface GatewayChild {
  child: ChildProcess;
  urls: { gateway: string; console: string; collector: string };
  ca: string;
  gateway(method: string, path: string, init?: RequestInit): Promise<HttpResult>;
  console(method: string, path: string, init?: RequestInit): Promise<HttpResult>;
  stderr(): string;
  /** SIGTERM and wait (SIGKILL after `timeoutMs`); safe to call twice. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Only what the service needs: nothing leaks in from the test runner's environment. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    GATEWAY_ENV: 'development',
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    LOG_LEVEL: 'warn',
    ...env,
  };
}

export async function spawnGateway(
  env: Record<string, string> & { GATEWAY_DATA_DIR: string },
  timeoutMs = 30_000,
): Promise<GatewayChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = once(child, 'exit');
  const urls = await new Promise<GatewayChild['urls']>((resolveUrls, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      for (const line of stdout.split('\n')) {
        if (!line.includes('"listening"')) continue;
        try {
          const parsed = JSON.parse(line) as { event?: string; gateway: string; console: string; collector: string };
          if (parsed.event !== 'listening') continue;
          clearTimeout(timer);
          resolveUrls({ gateway: parsed.gateway, console: parsed.console, collector: parsed.collector });
          return;
        } catch {
          /* a partial line: wait for more */
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  const ca = readFileSync(join(env.GATEWAY_DATA_DIR, 'tls', 'cert.pem'), 'utf8');
  const dispatcher = new Agent({ connect: { ca }, keepAliveTimeout: 1000, connections: 64 });

  const call = httpCaller(dispatcher);

  let stopping: Promise<void> | undefined;
  return {
    child,
    urls,
    ca,
    gateway: (m, p, i) => call(urls.gateway, m, p, i),
    console: (m, p, i) => call(urls.console, m, p, i),
    stderr: () => stderr,
    stop: (stopTimeoutMs = 10_000) =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
        await exited;
        clearTimeout(timer);
        await dispatcher.close();
      })()),
  };
}
