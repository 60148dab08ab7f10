#!/usr/bin/env node
// Gateway CPU per request: the number that latency and throughput mirror once the machine is
// CPU-bound, and much less disturbed by other work on the machine than latency is. And the idle
// gateway's resident memory, all surfaces and gateway-only.
//   node bench/overhead/cpu.mjs [--requests=N] [--concurrency=C] [--repeats=R] [--modes=json,stream] [--no-build]
//                               [--cpu-prof=DIR] [--target=gateway|bare-https|bare-http]
//                               [--baseline=<git ref>|.] [--node-args="…"] [--baseline-node-args="…"] [--warmup=N]
//                               [--env="NAME=value …"] [--baseline-env="NAME=value …"]
//                               [--rss-repeats=N] [--idle-wait=S] [--no-rss] [--no-cpu] [--threads] [--floor] [--rate=R]
// Starts the mock upstream and the gateway exactly as run.mjs does, warms the gateway up, then
// for each mode sends N requests R times (autocannon, closed loop) and reads the gateway
// process's user + system CPU ticks from /proc/<pid>/stat before and after each batch. Prints
// µs of gateway CPU per request for every batch, and the median and minimum per mode (on a
// shared machine, contention inflates CPU time too: the minimum is the steadier figure). `--cpu-prof=DIR`
// starts the gateway with `node --cpu-prof` and writes its V8 profile into DIR when it stops.
// `--threads` also prints each batch's CPU per request by thread: the main thread, then the others
// by thread id (GC and compiler helpers, libuv's pool, the WAL checkpoint worker).
// `--floor` also measures the bare HTTPS pass-through (lib/bare-proxy.mjs: pipes bytes, parses
// nothing) in the same alternating rounds, and prints each gateway build's CPU above that floor:
// what the gateway's own work costs, apart from the TLS, HTTP and loopback cost any Node proxy pays.
//
// `--baseline=<ref>` measures a second build in the same run: `git archive <ref>` into a temp
// dir, built there, both gateways running side by side; batches alternate between the two
// (order flipped every round), so drift of a shared machine falls on both alike; the change is
// also given paired, as the median over rounds of the ratio of a round's two batches. Then, unless
// `--no-rss`, the idle memory of each build: a fresh `bin/gateway serve` with all surfaces and
// one with GATEWAY_SURFACES=gateway, each on a first start (the CA and certificate are made)
// and on a restart of the same data dir, `--idle-wait` seconds (default 3) after its listening line,
// no request sent: VmRSS, RssAnon, RssFile from /proc/<pid>/status, median of `--rss-repeats`
// (default 3) starts. Everything is printed side by side with the change. `--baseline=.` compares
// this tree with itself, e.g. under other node flags: `--node-args` and `--baseline-node-args` add
// flags to the gateway processes of this tree and of the baseline (after bin/gateway's own);
// `--env` and `--baseline-env` add environment variables to them (e.g. GATEWAY_ACCESS_LOG=off).
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { makeTargets, startUpstream } from './lib/targets.mjs';
import { buildGateway, prepareBaseline, spawnGateway, startGatewayProcess } from './lib/gateway-process.mjs';
import { checkTarget } from './lib/requests.mjs';
import { arg } from './lib/args.mjs';
import { processTicks, threadTicks, stopAll, killAllSync, sleep } from './lib/processes.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '../..');
const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const requests = Number(arg('requests', 5000));
const connections = Number(arg('concurrency', 10));
const repeats = Number(arg('repeats', 3));
const modes = arg('modes', 'json,stream').split(',');
const cpuProfDir = arg('cpu-prof', '');
const targetId = arg('target', 'gateway');
const baselineRef = arg('baseline', '');
const rssRepeats = Number(arg('rss-repeats', 3));
const idleWaitMs = Number(arg('idle-wait', 3)) * 1000;
const measureRss = !process.argv.includes('--no-rss') && targetId === 'gateway';
const warmup = Number(arg('warmup', 3000));
const measureCpu = !process.argv.includes('--no-cpu');
const perThread = process.argv.includes('--threads');
const withFloor = process.argv.includes('--floor') && targetId === 'gateway';
const rate = Number(arg('rate', 0));
const nodeArgs = (flags) => flags.split(/\s+/).filter(Boolean);
/** `--env="A=1 B=2"` → { A: '1', B: '2' }. */
const envVars = (text) =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
const TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

function run(url, headers, body, amount) {
  return new Promise((resolveRun, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        connections,
        pipelining: 1,
        amount,
        // --rate: the same offered load for every build (open loop), instead of as fast as each answers.
        ...(rate > 0 ? { overallRate: rate } : {}),
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolveRun(result)),
    );
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One batch of `requests` in `mode` against `server`: µs of the server process's CPU per request. */
async function batch(server, mode, label) {
  const threadsBefore = perThread ? threadTicks(server.pid) : undefined;
  const before = processTicks(server.pid);
  const started = performance.now();
  const result = await run(server.url, server.headers, server.body(mode), requests);
  const seconds = (performance.now() - started) / 1000;
  const ticks = processTicks(server.pid) - before;
  const threadsAfter = perThread ? threadTicks(server.pid) : undefined;
  const ok = result['2xx'];
  if (ok !== requests)
    throw new Error(
      `${label} ${mode}: ${ok} of ${requests} requests answered 2xx (non-2xx ${result.non2xx}, errors ${result.errors})`,
    );
  const us = (ticks * TICK_US) / ok;
  process.stderr.write(
    `· ${label} ${mode} c=${connections}: ${us.toFixed(0)} µs CPU/request, ${(ok / seconds).toFixed(0)} req/s\n`,
  );
  if (threadsAfter) {
    const shares = [...threadsAfter]
      .map(([tid, after]) => [
        tid === server.pid ? 'main' : tid,
        ((after - (threadsBefore.get(tid) ?? 0)) * TICK_US) / ok,
      ])
      .filter(([, share]) => share > 0)
      .sort((a, b) => b[1] - a[1]);
    process.stderr.write(`  by thread: ${shares.map(([tid, share]) => `${tid} ${share.toFixed(0)}`).join(', ')}\n`);
  }
  return us;
}

/** VmRSS, RssAnon and RssFile of a process, in MB. */
function residentMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: field('VmRSS'), anon: field('RssAnon'), file: field('RssFile') };
}

/** The idle-memory cases: all surfaces and gateway-only, each on a first start and on a restart. */
const IDLE_CASES = ['all', 'gateway', 'all, restart', 'gateway, restart'];
const caseLabel = (c) => c.replace('all', 'all surfaces').replace('gateway', 'gateway-only');

/**
 * A gateway of `build`, idle `idleWaitMs` after it listens: its resident memory. A first start
 * makes the CA and certificate and runs the migrations; for a restart case the gateway is
 * started once, stopped, and started again on the same data dir, as a deployment restarts.
 */
async function idleMemory(ctx, build, idleCase, round) {
  const env = idleCase.startsWith('gateway') ? { GATEWAY_SURFACES: 'gateway' } : {};
  const name = `idle-${build.id}-${idleCase.replace(', ', '-')}-${round}`;
  const bctx = { ...ctx, repoRoot: build.root, gatewayNodeArgs: build.nodeArgs };
  if (idleCase.endsWith('restart')) await (await spawnGateway(bctx, { name, env })).stop();
  const started = await spawnGateway(bctx, { name, env });
  try {
    await sleep(idleWaitMs);
    return residentMemory(started.entry.pid);
  } finally {
    await started.stop();
  }
}

function describeCommit(root) {
  try {
    const head = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown commit';
  }
}

const fmt = (v, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');
const change = (before, after) =>
  before > 0 ? `${after >= before ? '+' : ''}${(((after - before) / before) * 100).toFixed(1)} %` : 'n/a';

async function main() {
  const build = !process.argv.includes('--no-build');
  if (targetId === 'gateway' && build) await buildGateway(repoRoot);
  const tmpDir = mkdtempSync(join(tmpdir(), 'bench-cpu-'));
  const logDir = join(tmpDir, 'logs');
  mkdirSync(logDir);
  const childEnv = { ...process.env };
  delete childEnv.NODE_OPTIONS;
  const ctx = { repoRoot, benchDir, tmpDir, logDir, childEnv, upstream: null };
  const builds = [
    {
      id: 'this',
      label: `this tree (${describeCommit(repoRoot)})`,
      root: repoRoot,
      nodeArgs: nodeArgs(arg('node-args', '')),
      env: envVars(arg('env', '')),
    },
  ];
  if (baselineRef === '.') {
    builds.unshift({
      id: 'baseline',
      label: `this tree, node ${arg('baseline-node-args', '(no extra flags)')} ${arg('baseline-env', '')}`.trim(),
      root: repoRoot,
      nodeArgs: nodeArgs(arg('baseline-node-args', '')),
      env: envVars(arg('baseline-env', '')),
    });
    builds[1].label = `this tree, node ${arg('node-args', '(no extra flags)')} ${arg('env', '')}`.trim();
  } else if (baselineRef) {
    if (targetId !== 'gateway') throw new Error('--baseline compares two gateway builds (--target=gateway)');
    const root = join(tmpDir, 'baseline');
    process.stderr.write(`· building the baseline ${baselineRef} in ${root}\n`);
    const commit = await prepareBaseline(repoRoot, baselineRef, root);
    builds.unshift({
      id: 'baseline',
      label: `baseline ${baselineRef} (${commit.slice(0, 7)})`,
      root,
      nodeArgs: nodeArgs(arg('baseline-node-args', '')),
      env: envVars(arg('baseline-env', '')),
    });
  }
  ctx.upstream = await startUpstream(ctx, 0);
  const profArgs = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(cpuProfDir)}`] : [];
  const buildCtx = (b) => ({ ...ctx, repoRoot: b.root, gatewayNodeArgs: [...b.nodeArgs, ...profArgs] });
  try {
    // Idle memory first, before any load has run on the machine's page cache or the CPU.
    const memory = new Map(builds.map((b) => [b.id, Object.fromEntries(IDLE_CASES.map((c) => [c, []]))]));
    if (measureRss) {
      for (let round = 0; round < rssRepeats; round++) {
        const order = round % 2 === 0 ? builds : [...builds].reverse();
        for (const b of order)
          for (const idleCase of IDLE_CASES) {
            const m = await idleMemory(ctx, b, idleCase, round);
            memory.get(b.id)[idleCase].push(m);
            process.stderr.write(
              `· ${b.id} idle ${caseLabel(idleCase)}: RSS ${fmt(m.rss, 1)} MB (anon ${fmt(m.anon, 1)}, file ${fmt(m.file, 1)})\n`,
            );
          }
      }
    }

    const servers = [];
    for (const b of measureCpu ? builds : []) {
      const server =
        targetId === 'gateway'
          ? await startGatewayProcess(buildCtx(b), { name: `gateway-${b.id}`, env: b.env })
          : await makeTargets(buildCtx(b), [targetId])[0].start();
      servers.push({ build: b, server, cpu: new Map(modes.map((m) => [m, []])) });
    }
    if (withFloor && measureCpu) {
      const floor = { id: 'floor', label: 'bare HTTPS pass-through', root: repoRoot, nodeArgs: [] };
      const server = await makeTargets(buildCtx(floor), ['bare-https'])[0].start();
      servers.push({ build: floor, server, cpu: new Map(modes.map((m) => [m, []])) });
    }
    for (const s of servers) {
      for (const mode of modes) {
        const problem = await checkTarget(s.server, mode);
        if (problem) throw new Error(`${s.build.id} ${mode} check: ${problem}`);
        await run(s.server.url, s.server.headers, s.server.body(mode), warmup);
      }
    }
    for (let i = 0; i < repeats; i++) {
      const order = i % 2 === 0 ? servers : [...servers].reverse();
      for (const mode of modes) for (const s of order) s.cpu.get(mode).push(await batch(s.server, mode, s.build.id));
    }

    const cpuOf = new Map(servers.map((s) => [s.build.id, s.cpu]));
    const lines = [];
    for (const b of builds) {
      for (const mode of measureCpu ? modes : []) {
        const perRequest = cpuOf.get(b.id).get(mode);
        lines.push(
          `${b.id.padEnd(8)} ${mode.padEnd(6)} c=${connections}: ${targetId} CPU ${fmt(median(perRequest))} µs/request median, ${fmt(Math.min(...perRequest))} min ` +
            `(${repeats} × ${requests}; all: ${perRequest.map((v) => fmt(v)).join(', ')})`,
        );
      }
      for (const idleCase of measureRss ? IDLE_CASES : []) {
        const ms = memory.get(b.id)[idleCase];
        lines.push(
          `${b.id.padEnd(8)} idle RSS ${caseLabel(idleCase)}: ${fmt(median(ms.map((m) => m.rss)), 1)} MB median ` +
            `(anon ${fmt(median(ms.map((m) => m.anon)), 1)}, file ${fmt(median(ms.map((m) => m.file)), 1)}; all: ${ms.map((m) => fmt(m.rss, 1)).join(', ')})`,
        );
      }
    }
    const floorCpu = cpuOf.get('floor');
    if (floorCpu) {
      for (const mode of modes) {
        const perRequest = floorCpu.get(mode);
        lines.push(
          `floor    ${mode.padEnd(6)} c=${connections}: bare-https CPU ${fmt(median(perRequest))} µs/request median, ${fmt(Math.min(...perRequest))} min ` +
            `(${repeats} × ${requests}; all: ${perRequest.map((v) => fmt(v)).join(', ')})`,
        );
        for (const b of builds) {
          // Per round: the build's batch minus the floor's batch of the same round, then the median.
          const own = cpuOf
            .get(b.id)
            .get(mode)
            .map((v, i) => v - perRequest[i]);
          lines.push(
            `${b.id.padEnd(8)} ${mode.padEnd(6)} c=${connections}: above the floor ${fmt(median(own))} µs/request median (paired by round)`,
          );
        }
        if (builds.length === 2) {
          const base = median(cpuOf.get(builds[0].id).get(mode));
          lines.push(
            `${mode} c=${connections}: 30 % below the baseline is ${fmt(base * 0.7)} µs/request; the floor is ${fmt(median(perRequest))} ` +
              `(${fmt((100 * median(perRequest)) / (base * 0.7))} % of it)`,
          );
        }
      }
    }
    if (builds.length === 2) {
      const [before, after] = builds;
      lines.push('', `${''.padEnd(34)} ${before.label.padEnd(34)} ${after.label.padEnd(34)} change`);
      const row = (name, b, a, digits) =>
        lines.push(`${name.padEnd(34)} ${fmt(b, digits).padEnd(34)} ${fmt(a, digits).padEnd(34)} ${change(b, a)}`);
      for (const mode of measureCpu ? modes : []) {
        const [b, a] = [cpuOf.get(before.id).get(mode), cpuOf.get(after.id).get(mode)];
        row(`${mode} c=${connections} CPU µs/req, median`, median(b), median(a));
        row(`${mode} c=${connections} CPU µs/req, min`, Math.min(...b), Math.min(...a));
        // Each round's two batches ran back to back: their ratio is what drift of a loaded
        // machine disturbs least. Median of the rounds, and the middle half of them.
        const ratios = b.map((before, i) => a[i] / before).sort((x, y) => x - y);
        const pct = (r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
        const quartile = (q) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))];
        lines.push(
          `${`${mode} c=${connections} paired rounds`.padEnd(34)} ${''.padEnd(34)} ${''.padEnd(34)} ${pct(median(ratios))} ` +
            `(middle half ${pct(quartile(0.25))} to ${pct(quartile(0.75))}, ${ratios.length} rounds)`,
        );
      }
      for (const idleCase of measureRss ? IDLE_CASES : []) {
        const b = memory.get(before.id)[idleCase];
        const a = memory.get(after.id)[idleCase];
        const label = caseLabel(idleCase);
        row(`idle RSS MB, ${label}`, median(b.map((m) => m.rss)), median(a.map((m) => m.rss)), 1);
        row(`  of which anonymous`, median(b.map((m) => m.anon)), median(a.map((m) => m.anon)), 1);
      }
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await stopAll();
    rmSync(tmpDir, { recursive: true, force: true });
  }
}

process.on('exit', killAllSync);
main().then(
  async () => {
    await stopAll();
    process.exit(0);
  },
  async (error) => {
    process.stderr.write(`bench/overhead/cpu: ${error.stack ?? error.message}\n`);
    await stopAll();
    process.exit(1);
  },
);
