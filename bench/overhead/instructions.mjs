#!/usr/bin/env node
// Instructions per request: the gateway's user-space instructions (every thread) counted by
// valgrind's callgrind, for a build and a baseline in the same run. CPU time on a shared 2-core
// machine moves ±15 % with the other work on it; an instruction count does not (it leaves out the
// kernel: system calls, TLS and loopback TCP below the socket API, which a pass-through pays too).
//   node bench/overhead/instructions.mjs --baseline=<git ref> [--requests=N] [--repeats=R]
//                                        [--modes=json,stream] [--concurrency=C] [--warmup=N] [--no-build] [--keep]
//                                        [--node-args="…"] [--baseline-node-args="…"] [--baseline-root=DIR]
// Each gateway runs under `valgrind --tool=callgrind --instr-atstart=no` (instrumentation off: ~10×
// slower, not ~100×), is warmed up, then for every batch its counters are zeroed, instrumentation
// switched on, N requests sent (autocannon, closed loop), instrumentation switched off and the
// counters dumped; the batches of the two builds alternate, order flipped every round. Prints
// instructions per request for every batch, the median per build and mode, and the change paired
// by round; `--keep` keeps the dumps (callgrind_annotate reads them: native code by function, the
// JIT's code as unnamed addresses). `--node-args` and `--baseline-node-args` add node flags to the
// gateway of this tree and of the baseline (after bin/gateway's own), e.g. to compare V8 flags with
// `--baseline=HEAD` on a clean tree; `--baseline-root=DIR` runs the baseline from a tree built
// before (a `--keep` run's baseline/) instead of building it again. Needs valgrind (apt-get install valgrind).
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { startUpstream } from './lib/targets.mjs';
import { buildGateway, prepareBaseline, startGatewayProcess } from './lib/gateway-process.mjs';
import { checkTarget } from './lib/requests.mjs';
import { arg } from './lib/args.mjs';
import { stopAll, killAllSync } from './lib/processes.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '../..');
const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const baselineRef = arg('baseline', '');
const requests = Number(arg('requests', 400));
const repeats = Number(arg('repeats', 3));
const connections = Number(arg('concurrency', 10));
const warmup = Number(arg('warmup', 2000));
const modes = arg('modes', 'json,stream').split(',');
const keep = process.argv.includes('--keep');
const nodeArgs = (flags) => flags.split(/\s+/).filter(Boolean);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function load(server, mode, amount) {
  return new Promise((resolveRun, reject) => {
    autocannon(
      {
        url: server.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...server.headers },
        body: server.body(mode),
        connections,
        pipelining: 1,
        amount,
        timeout: 60,
      },
      (error, result) => {
        if (error) return reject(error);
        // A socket error or two (a TLS handshake past the gateway's deadline while valgrind
        // retranslates after `--instr=on`) is tolerated and reported; counts are per answered request.
        const answered = result['2xx'];
        if (result.non2xx > 0 || answered < amount * 0.99)
          return reject(new Error(`${mode}: ${answered} of ${amount} answered 2xx (errors ${result.errors})`));
        if (answered !== amount)
          process.stderr.write(`· ${mode}: ${amount - answered} socket errors in a batch of ${amount}\n`);
        resolveRun(result);
      },
    );
  });
}

const control = (pid, ...args) => execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });

/**
 * The Ir totals of dump number `n` of `pid` in `dir`, one file per thread (--separate-threads):
 * the main thread's, and every thread's (GC helpers, the WAL checkpoint worker, libuv's pool).
 */
function dumpTotals(dir, pid, n) {
  let main = 0;
  let all = 0;
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`callgrind.${pid}.${n}-`))) {
    // `totals:` sums the dump's functions (`summary:` may stay 0 in a dump on request).
    const total = /^totals:\s+(\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
    if (!total) throw new Error(`no totals in ${file}`);
    all += Number(total[1]);
    if (file.endsWith('-01')) main = Number(total[1]);
  }
  return { main, all };
}

async function batch(build, mode) {
  const { pid } = build.server;
  control(pid, '--zero');
  control(pid, '--instr=on');
  const answered = (await load(build.server, mode, requests))['2xx'];
  control(pid, '--instr=off');
  control(pid, '--dump');
  const totals = dumpTotals(build.dumpDir, pid, ++build.dumps);
  const main = (totals.main / answered) * requests;
  const all = (totals.all / answered) * requests;
  process.stderr.write(
    `· ${build.id} ${mode} c=${connections}: ${(main / requests / 1000).toFixed(0)} k instructions/request on the main thread, ${(all / requests / 1000).toFixed(0)} k in all threads\n`,
  );
  return { main: main / requests, all: all / requests };
}

async function main() {
  if (!baselineRef) throw new Error('--baseline=<git ref> is required');
  if (!process.argv.includes('--no-build')) await buildGateway(repoRoot);
  const tmpDir = mkdtempSync(join(tmpdir(), 'bench-instructions-'));
  const logDir = join(tmpDir, 'logs');
  mkdirSync(logDir);
  const childEnv = { ...process.env };
  delete childEnv.NODE_OPTIONS;
  const ctx = {
    repoRoot,
    benchDir,
    tmpDir,
    logDir,
    childEnv,
    upstream: null,
    listenTimeoutMs: 300_000,
    requestTimeoutMs: 120_000,
  };
  try {
    // `--baseline-root`: a tree of `--baseline` built before (by an earlier run with --keep), not built again.
    const builtRoot = arg('baseline-root', '');
    const baselineRoot = builtRoot ? resolve(builtRoot) : join(tmpDir, 'baseline');
    if (!builtRoot) process.stderr.write(`· building the baseline ${baselineRef} in ${baselineRoot}\n`);
    const commit = builtRoot
      ? execFileSync('git', ['-C', repoRoot, 'rev-parse', '--verify', `${baselineRef}^{commit}`], {
          encoding: 'utf8',
        }).trim()
      : await prepareBaseline(repoRoot, baselineRef, baselineRoot);
    ctx.upstream = await startUpstream(ctx, 0);
    const flagged = (label, flags) => (flags ? `${label}, node ${flags}` : label);
    const builds = [
      {
        id: 'baseline',
        label: flagged(`${baselineRef} (${commit.slice(0, 7)})`, arg('baseline-node-args', '')),
        root: baselineRoot,
        nodeArgs: nodeArgs(arg('baseline-node-args', '')),
      },
      {
        id: 'this',
        label: flagged('this tree', arg('node-args', '')),
        root: repoRoot,
        nodeArgs: nodeArgs(arg('node-args', '')),
      },
    ];
    for (const b of builds) {
      b.dumpDir = join(tmpDir, `callgrind-${b.id}`);
      b.dumps = 0;
      mkdirSync(b.dumpDir);
      const launcher = [
        'valgrind',
        '--tool=callgrind',
        '--instr-atstart=no',
        // V8 writes and rewrites machine code on the heap.
        '--smc-check=all-non-file',
        // Per thread: timers (the WAL checkpoint every 100 ms) fire ~50× as often per request under
        // valgrind; the main thread's count is the steadier figure.
        '--separate-threads=yes',
        `--callgrind-out-file=${join(b.dumpDir, 'callgrind.%p')}`,
      ];
      b.server = await startGatewayProcess(
        { ...ctx, repoRoot: b.root, gatewayLauncher: launcher, gatewayNodeArgs: b.nodeArgs },
        { name: `gateway-${b.id}` },
      );
      b.counts = new Map(modes.map((m) => [m, []]));
      for (const mode of modes) {
        const problem = await checkTarget(b.server, mode, ctx.requestTimeoutMs);
        if (problem) throw new Error(`${b.id} ${mode} check: ${problem}`);
        await load(b.server, mode, warmup);
      }
    }
    for (let round = 0; round < repeats; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const mode of modes) for (const b of order) b.counts.get(mode).push(await batch(b, mode));
    }
    const lines = [];
    const k = (v) => `${(v / 1000).toFixed(0)} k`;
    const pct = (r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
    for (const mode of modes) {
      for (const which of ['main', 'all']) {
        const [before, after] = builds.map((b) => b.counts.get(mode).map((c) => c[which]));
        const ratios = before.map((b, i) => after[i] / b).sort((x, y) => x - y);
        const what = which === 'main' ? 'main thread' : 'all threads';
        for (const [i, b] of builds.entries()) {
          const counts = i === 0 ? before : after;
          lines.push(
            `${b.label.padEnd(24)} ${mode.padEnd(6)} c=${connections}, ${what}: ${k(median(counts))} instructions/request median ` +
              `(${repeats} × ${requests}; all: ${counts.map(k).join(', ')})`,
          );
        }
        lines.push(
          `${mode} c=${connections}, ${what}: change paired by round ${pct(median(ratios))} (from ${pct(ratios[0])} to ${pct(ratios.at(-1))})`,
        );
      }
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await stopAll();
    if (keep) process.stderr.write(`· kept ${tmpDir} (callgrind-*/: one dump per batch, for callgrind_annotate)\n`);
    else rmSync(tmpDir, { recursive: true, force: true });
  }
}

process.on('exit', killAllSync);
main().then(
  async () => {
    await stopAll();
    process.exit(0);
  },
  async (error) => {
    process.stderr.write(`bench/overhead/instructions: ${error.stack ?? error.message}\n`);
    await stopAll();
    process.exit(1);
  },
);
