import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '..', '..');

/**
 * Builds the server as `npm run build` does (scripts/build-server.mjs: tsc, then the bundle) into
 * a temporary directory (not the repository's dist/, which tests and other work use), so the
 * benchmarked gateway runs as plain JavaScript, the way `bin/gateway` runs it, without tsx's
 * loader in its memory. Returns the entry file, or undefined when the build produced no entry
 * (the caller then falls back to tsx).
 */
export function compileGateway(): { entry: string; cleanup(): void } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'bench-gateway-build-'));
  // The build resolves packages from the built files (the bundle, the tokenizer tables).
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  spawnSync(process.execPath, [join(REPO, 'scripts', 'build-server.mjs'), `--out=${dir}`], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (!existsSync(join(dir, 'dist', 'bundle', 'main.js'))) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  // What bin/gateway does, pointed at this build.
  writeFileSync(
    join(dir, 'gateway.mjs'),
    "import('./dist/bundle/startup-heap.js').then((heap) => { heap.holdYoungGeneration(); return import('./dist/bundle/main.js'); }).then((m) => m.main(process.argv.slice(2)));\n",
  );
  return { entry: join(dir, 'gateway.mjs'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface SpawnedGateway {
  child: ChildProcess;
  urls: { gateway: string; console: string; collector: string };
  runtime: 'compiled' | 'tsx';
  stop(): Promise<void>;
}

/**
 * `gateway serve` as a child process; resolves with the URLs of its `listening` line. `nodeArgs`
 * go before the entry (e.g. `--max-old-space-size=128`, the heap cap an operator sets).
 */
export async function spawnGateway(
  env: Record<string, string>,
  compiledEntry?: string,
  nodeArgs: string[] = [],
): Promise<SpawnedGateway> {
  const args = compiledEntry
    ? // The V8 flag bin/gateway's shebang and `npm start` pass (16 since c5f7188; this still said 8,
      // so benchmarks ran a young generation half the size users run).
      ['--max-semi-space-size=16', ...nodeArgs, compiledEntry, 'serve']
    : [...nodeArgs, '--import', 'tsx', join(REPO, 'test', 'support', 'gateway-process.ts')];
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'warn',
      // e.g. BENCH_GATEWAY_NODE_OPTIONS=--max-semi-space-size=4 to see what V8's young generation costs.
      ...(process.env.BENCH_GATEWAY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_GATEWAY_NODE_OPTIONS } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const line = await new Promise<string>((resolveLine, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolveLine(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`gateway exited (${code}) before listening`)));
  });
  const urls = JSON.parse(line) as { gateway: string; console: string; collector: string };
  return {
    child,
    urls,
    runtime: compiledEntry ? 'compiled' : 'tsx',
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return; // a gateway killed by a signal (out of memory) has exited too
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
