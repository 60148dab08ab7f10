#!/usr/bin/env node
// Attack benchmark (issue 16, item 10). From the repository root, never in CI:
//   node bench/attack/run.mjs                       every attack (~10 min)
//   node bench/attack/run.mjs --attacks=slowloris   one attack (~2.5 min)
// For each attack: a fresh gateway (built `bin/gateway serve`, SQLite in a temp dir, a mock
// OpenAI upstream), a normal client measured on the idle service, then the same client while the
// attack runs: success rate, p50/p99 and p99 ÷ idle p99, the gateway's RSS, the database's growth.
// Options:
//   --attacks=LIST          slowloris,flood,bigtoken,nested (default: all, in that order)
//   --idle-seconds=S        normal client alone, the baseline (default 20)
//   --attack-seconds=S      normal client under attack, measured (default 60)
//   --rate=N                normal client requests per second, open loop (default 20)
//   --slow=N                slowloris: connections sending their head a byte at a time (default 5000)
//   --idle-connections=N    slowloris: TLS connections that never send a request (default 1000)
//   --addresses=N           slowloris: source addresses 127.0.2.1… the attack comes from (default 50)
//   --dribble-ms=N          slowloris: one byte per connection every N ms (default 2000)
//   --flood-connections=N   flood: concurrent senders of POST /_gateway/event (default 32)
//   --flood-addresses=N     flood: source addresses 127.0.3.1… the flood comes from (default 8)
//   --big-token-bytes=N     bigtoken: length of the one-character message (default 1000000)
//   --depth=N               nested: JSON nesting depth (default 10000)
//   --gateway-env=K=V,…     extra environment for the gateway (e.g. a collector quota)
//   --gateway-cpus=LIST     pin the gateway (all its threads) to these CPUs (taskset -c LIST), e.g. 1
//   --no-build              do not build the gateway first (scripts/build-server.mjs)
//   --keep                  keep the temp dir (logs, gateway data dirs)
// Exit code 0 when every measured target is met, 1 otherwise, 130 on Ctrl-C.
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGateway } from '../overhead/lib/gateway-process.mjs';
import { killAllSync, runMain } from '../overhead/lib/processes.mjs';
import { writeJson } from '../overhead/lib/report.mjs';
import { startUpstream } from '../overhead/lib/targets.mjs';
import { report } from './report.mjs';
import { runAttack } from './run-attack.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '../..');
const ATTACKS = ['slowloris', 'flood', 'bigtoken', 'nested'];

function parseOptions(argv) {
  const flag = (name) => argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const value = (name, fallback) => {
    const hit = flag(name);
    return hit && hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : fallback;
  };
  const number = (name, fallback) => {
    const n = Number(value(name, fallback));
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number`);
    return n;
  };
  if (flag('help') || flag('h')) {
    process.stdout.write(
      readFileSync(fileURLToPath(import.meta.url), 'utf8')
        .split('\n')
        .slice(1)
        .filter((line, i, lines) => lines.slice(0, i + 1).every((l) => l.startsWith('//')))
        .map((l) => l.replace(/^\/\/ ?/, ''))
        .join('\n') + '\n',
    );
    process.exit(0);
  }
  const attacks = String(value('attacks', ATTACKS.join(',')))
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  for (const a of attacks) if (!ATTACKS.includes(a)) throw new Error(`unknown attack "${a}" (known: ${ATTACKS})`);
  // The collector project's domain (attack.bench.test) is a test name, refused outside
  // development mode since domain ownership is checked (issue 16, row 6).
  const gatewayEnv = Object.fromEntries(
    ['GATEWAY_ENV=development', ...String(value('gateway-env', '')).split(',')]
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  return {
    attacks,
    idleSeconds: number('idle-seconds', 20),
    attackSeconds: number('attack-seconds', 60),
    rate: number('rate', 20),
    slow: number('slow', 5000),
    idleConnections: number('idle-connections', 1000),
    addresses: number('addresses', 50),
    dribbleMs: number('dribble-ms', 2000),
    floodConnections: number('flood-connections', 32),
    floodAddresses: number('flood-addresses', 8),
    bigTokenBytes: number('big-token-bytes', 1_000_000),
    depth: number('depth', 10_000),
    gatewayEnv,
    build: !flag('no-build'),
    keep: Boolean(flag('keep')),
    gatewayCpus: value('gateway-cpus', ''),
  };
}

/** The soft limit on open files (Node raised it to the hard limit at start-up; children inherit it). */
function openFilesLimit() {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    return Number(line.slice('Max open files'.length).trim().split(/\s+/)[0]);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------

const cleanup = { tmpDir: null, keep: false };

async function main() {
  if (process.env.CI) {
    process.stderr.write('bench/attack: refusing to run in CI (CI is set): it floods the machine on purpose\n');
    process.exit(1);
  }
  const options = parseOptions(process.argv.slice(2));
  cleanup.keep = options.keep;
  const log = (line) => process.stderr.write(line + '\n');

  const needed = options.attacks.includes('slowloris') ? options.slow + options.idleConnections + 1024 : 2048;
  const limit = openFilesLimit();
  if (limit !== undefined && limit < needed) {
    log(
      `bench/attack: the open-files limit is ${limit}; slowloris needs about ${needed} in the attacker and in the gateway.\n` +
        `Raise it in the shell that runs the bench (ulimit -n ${needed}; the hard limit, ulimit -Hn, caps it), or pass --slow and --idle-connections lower.`,
    );
    process.exit(1);
  }

  const started = new Date().toISOString();
  const loadBefore = loadavg();
  if (options.build) {
    log('building the gateway (scripts/build-server.mjs)…');
    await buildGateway(repoRoot);
  }
  if (!existsSync(join(repoRoot, 'dist/cli/main.js'))) throw new Error('dist/cli/main.js is missing: build first');
  const tmpDir = (cleanup.tmpDir = mkdtempSync(join(tmpdir(), 'bench-attack-')));
  const logDir = join(tmpDir, 'logs');
  mkdirSync(logDir);
  const childEnv = { ...process.env };
  delete childEnv.NODE_OPTIONS;
  // benchDir: where the overhead lib finds its mock upstream.
  const ctx = { repoRoot, benchDir: join(repoRoot, 'bench/overhead'), tmpDir, logDir, childEnv, upstream: null };
  ctx.upstream = await startUpstream(ctx, 0);
  log(`mock upstream ${ctx.upstream.url}; temp dir ${tmpDir}; open-files limit ${limit ?? 'unknown'}`);

  const results = [];
  for (const name of options.attacks) {
    log(`${name}…`);
    results.push(await runAttack(name, options, ctx, log));
  }
  await ctx.upstream.stop();

  const meta = { started, cpus: cpus().length, loadBefore, loadAfter: loadavg(), openFilesLimit: limit };
  process.stdout.write(report(results, meta) + '\n');
  const file = writeJson(join(repoRoot, 'bench/.results'), { ...meta, options, results }, 'attack');
  process.stdout.write(`results: ${file.slice(repoRoot.length + 1)}\n`);
  if (!options.keep) rmSync(tmpDir, { recursive: true, force: true });
  return results.every((r) => r.pass !== false) ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAllSync();
    if (cleanup.tmpDir && !cleanup.keep) rmSync(cleanup.tmpDir, { recursive: true, force: true });
    process.exit(130);
  });
}
runMain(
  main,
  (error) => `bench/attack failed: ${error.stack ?? error}\n`,
  () => {
    if (cleanup.tmpDir) process.stderr.write(`kept ${cleanup.tmpDir} (logs in ${join(cleanup.tmpDir, 'logs')})\n`);
  },
);
