#!/usr/bin/env node
// Gateway CPU per request: the number that latency and throughput mirror once the machine is
// CPU-bound, and much less disturbed by other work on the machine than latency is.
//   node bench/overhead/cpu.mjs [--requests=N] [--concurrency=C] [--repeats=R] [--modes=json,stream] [--no-build] [--cpu-prof=DIR]
//                               [--target=gateway|bare-https|bare-http]
// Starts the mock upstream and the gateway exactly as run.mjs does, warms the gateway up, then
// for each mode sends N requests R times (autocannon, closed loop) and reads the gateway
// process's user + system CPU ticks from /proc/<pid>/stat before and after each batch. Prints
// µs of gateway CPU per request for every batch, and the median and minimum per mode (on a
// shared machine, contention inflates CPU time too: the minimum is the steadier figure). `--cpu-prof=DIR`
// starts the gateway with `node --cpu-prof` and writes its V8 profile into DIR when it stops.
import { createRequire } from 'node:module';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTargets, startUpstream, checkTarget, buildGateway } from './lib/targets.mjs';
import { processTicks, stopAll, killAllSync } from './lib/processes.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '../..');
const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const arg = (name, fallback) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
};
const requests = Number(arg('requests', 5000));
const connections = Number(arg('concurrency', 10));
const repeats = Number(arg('repeats', 3));
const modes = arg('modes', 'json,stream').split(',');
const cpuProfDir = arg('cpu-prof', '');
const targetId = arg('target', 'gateway');
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
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolveRun(result)),
    );
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  if (targetId === 'gateway' && !process.argv.includes('--no-build')) await buildGateway(repoRoot);
  const tmpDir = mkdtempSync(join(tmpdir(), 'bench-cpu-'));
  const logDir = join(tmpDir, 'logs');
  mkdirSync(logDir);
  const childEnv = { ...process.env };
  delete childEnv.NODE_OPTIONS;
  const ctx = { repoRoot, benchDir, tmpDir, logDir, childEnv, upstream: null };
  ctx.upstream = await startUpstream(ctx, 0);
  const gatewayCtx = cpuProfDir
    ? { ...ctx, gatewayNodeArgs: ['--cpu-prof', `--cpu-prof-dir=${resolve(cpuProfDir)}`] }
    : ctx;
  const [target] = makeTargets(gatewayCtx, [targetId]);
  const gateway = await target.start();
  try {
    for (const mode of modes) {
      const problem = await checkTarget(gateway, mode);
      if (problem) throw new Error(`gateway ${mode} check: ${problem}`);
      await run(gateway.url, gateway.headers, gateway.body(mode), 2000);
    }
    const lines = [];
    for (const mode of modes) {
      const perRequest = [];
      for (let i = 0; i < repeats; i++) {
        const before = processTicks(gateway.pid);
        const started = performance.now();
        const result = await run(gateway.url, gateway.headers, gateway.body(mode), requests);
        const seconds = (performance.now() - started) / 1000;
        const ticks = processTicks(gateway.pid) - before;
        const ok = result['2xx'];
        if (ok !== requests)
          throw new Error(
            `${mode}: ${ok} of ${requests} requests answered 2xx (non-2xx ${result.non2xx}, errors ${result.errors})`,
          );
        const us = (ticks * TICK_US) / ok;
        perRequest.push(us);
        process.stderr.write(
          `· ${mode} c=${connections} batch ${i + 1}: ${us.toFixed(0)} µs CPU/request, ${(ok / seconds).toFixed(0)} req/s\n`,
        );
      }
      lines.push(
        `${mode.padEnd(6)} c=${connections}: ${targetId} CPU ${median(perRequest).toFixed(0)} µs/request median, ${Math.min(...perRequest).toFixed(0)} min ` +
          `(${repeats} × ${requests}; all: ${perRequest.map((v) => v.toFixed(0)).join(', ')})`,
      );
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await gateway.stop();
    await ctx.upstream.stop();
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
