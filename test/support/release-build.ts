import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/cli-process.js';
import { fileAtRelease } from './previous-release.js';

/**
 * A released commit built as its users got it, for the upgrade test: checked out in a temporary
 * `git worktree`, its own build script run there. Its node_modules is this checkout's when the
 * package-lock.json is the same (no install), else `npm ci --ignore-scripts` installs its own.
 */
export interface ReleaseBuild {
  root: string;
  /** How its dependencies were provided: `linked` or `npm ci`. */
  dependencies: 'linked' | 'npm ci';
  buildMs: number;
  remove(): void;
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stdout}${result.stderr}`,
    );
  }
}

export function buildRelease(commit: string): ReleaseBuild {
  const started = Date.now();
  const root = join(mkdtempSync(join(tmpdir(), 'gateway-release-')), 'tree');
  run('git', ['worktree', 'add', '--detach', root, commit], REPO_ROOT, 60_000);
  const remove = () => {
    spawnSync('git', ['worktree', 'remove', '--force', root], { cwd: REPO_ROOT });
    rmSync(join(root, '..'), { recursive: true, force: true });
  };
  try {
    const sameLock =
      fileAtRelease(commit, 'package-lock.json') === readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8');
    if (sameLock) symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules')), join(root, 'node_modules'));
    else run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], root, 600_000);
    // Its own build script, as its `npm run build` ran it; the web console is not needed to serve.
    spawnSync(process.execPath, [join(root, 'scripts', 'build-server.mjs')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (!existsSync(join(root, 'dist', 'bundle', 'main.js')))
      throw new Error(`the build of ${commit} produced no bundle`);
    return { root, dependencies: sameLock ? 'linked' : 'npm ci', buildMs: Date.now() - started, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

export interface BuiltGateway {
  child: ChildProcess;
  urls: { gateway: string; console: string; collector: string };
  stderr(): string;
  alive(): boolean;
  /** SIGTERM, then the exit code (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
}

/** A command of the build at `root`, as `bin/gateway <args>` runs it there. */
export function runBuilt(
  root: string,
  args: string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(root, 'bin', 'gateway'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `bin/gateway serve` of the build at `root`; resolves once it prints its listening line. */
export async function serveBuilt(root: string, env: Record<string, string>, timeoutMs = 60_000): Promise<BuiltGateway> {
  const child = spawn(process.execPath, [join(root, 'bin', 'gateway'), 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      GATEWAY_PORT: '0',
      CONSOLE_PORT: '0',
      COLLECTOR_PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const line = await new Promise<string>((resolveLine, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${root}: no listening line within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolveLine(stdout.slice(0, newline));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${root}: serve exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  const urls = JSON.parse(line) as BuiltGateway['urls'];
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    urls: { gateway: urls.gateway, console: urls.console, collector: urls.collector },
    stderr: () => stderr,
    alive,
    async stop() {
      if (alive()) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const [code] = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
