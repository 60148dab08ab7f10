import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

/** Helpers for tests that run the gateway as a separate process, the way an operator does. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI_ENTRY = join(REPO_ROOT, 'test', 'cli', 'cli-entry.ts');

/**
 * `bin` runs the real `bin/gateway` (needs `dist/`, see buildDist); `start` runs it with the Node
 * flags of package.json's `start` script, as `npm start` does; `tsx` runs src/ through tsx, which
 * needs no build step.
 */
export type CliMode = 'bin' | 'start' | 'tsx';

/** The Node flags `npm start` passes before bin/gateway, read from package.json's `start` script. */
function startScriptNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.trim().split(/\s+/);
  const bin = words.indexOf('bin/gateway');
  if (words[0] !== 'node' || bin < 0)
    throw new Error(`the start script is not \`node [flags] bin/gateway …\`: ${pkg.scripts.start}`);
  return words.slice(1, bin);
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the server exactly as `npm run build` does (tsc into dist/, then the bundle bin/gateway
 * runs, dist/bundle/), unless the bundle is newer than every source file, the build script and
 * the installed dependencies (a change to any of them changes what ships).
 */
export function buildDist(): void {
  withBuildLock(buildDistUnlocked);
}

/**
 * Test files run in parallel and several build: one builds while the others wait, then find the
 * bundle fresh (two builds at once delete each other's dist/bundle/).
 */
function withBuildLock(build: () => void): void {
  mkdirSync(join(REPO_ROOT, 'dist'), { recursive: true });
  const lock = join(REPO_ROOT, 'dist', '.build-lock');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Left by a build that was killed: no build takes this long (the build times out at 180 s).
      const age = existsSync(lock) ? Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs : 0;
      if (age > 300_000) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(pause, 0, 0, 250);
    }
  }
  try {
    build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function buildDistUnlocked(): void {
  const built = join(REPO_ROOT, 'dist', 'bundle', 'main.js');
  const inputs = Math.max(
    newestMtime(join(REPO_ROOT, 'src')),
    statSync(join(REPO_ROOT, 'scripts', 'build-server.mjs')).mtimeMs,
    statSync(join(REPO_ROOT, 'package-lock.json')).mtimeMs,
  );
  if (existsSync(built) && statSync(built).mtimeMs > inputs) return;
  const started = Date.now();
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-server.mjs')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 180_000,
  });
  // A type error elsewhere in the tree fails the script but still leaves a bundle to run.
  if (!existsSync(built) || statSync(built).mtimeMs < started) {
    throw new Error(`build failed (exit ${result.status}): ${result.stdout}${result.stderr}`);
  }
}

function cliArgs(mode: CliMode, args: string[]): string[] {
  if (mode === 'tsx') return ['--import', 'tsx', CLI_ENTRY, ...args];
  const flags = mode === 'start' ? startScriptNodeFlags() : [];
  return [...flags, join(REPO_ROOT, 'bin', 'gateway'), ...args];
}

/** A minimal environment: no DATABASE_URL or TLS files leak in from the caller's shell. */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test' };
  return { ...base, ...extra };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a child process with piped output, in `cwd` (the repository by default). */
export function spawnCli(mode: CliMode, args: string[], env: Record<string, string>, cwd = REPO_ROOT): ChildProcess {
  return spawn(process.execPath, cliArgs(mode, args), { cwd, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

export async function runCli(
  mode: CliMode,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  cwd = REPO_ROOT,
): Promise<CliResult> {
  const child = spawnCli(mode, args, env, cwd);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { status: code, stdout, stderr };
}

export interface ServeProcess {
  child: ChildProcess;
  /** The first stdout line, verbatim. */
  listeningLine: string;
  urls: { gateway: string; console: string; collector: string };
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then waits for exit; resolves with the exit code and how long it took. */
  stop(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; elapsedMs: number }>;
}

export async function startServe(
  mode: CliMode,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, cliArgs(mode, ['serve']), {
    cwd: REPO_ROOT,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const listeningLine = await new Promise<string>((resolveLine, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no listening line within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolveLine(stdout.slice(0, newline));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  const parsed = JSON.parse(listeningLine) as { gateway: string; console: string; collector: string };
  return {
    child,
    listeningLine,
    urls: { gateway: parsed.gateway, console: parsed.console, collector: parsed.collector },
    stdout: () => stdout,
    stderr: () => stderr,
    async stop(stopTimeoutMs = 10_000) {
      const started = Date.now();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      const [code, signal] = await exited;
      clearTimeout(timer);
      return { code, signal, elapsedMs: Date.now() - started };
    },
  };
}

export interface HttpsResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** An HTTPS client that trusts exactly one CA (the gateway's certificate). */
export function httpsClient(ca: string) {
  const dispatcher = new Agent({ connect: { ca }, keepAliveTimeout: 500 });
  async function call(
    url: string,
    method: string,
    init: { token?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
  ): Promise<HttpsResult> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    const response = await request(url, { method: method as 'GET', headers, body, dispatcher });
    const text = await response.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  }
  return { call, close: () => dispatcher.close() };
}
