#!/usr/bin/env node
// Gateway overhead benchmark (issue 3, item 10). From the repository root:
//   node bench/overhead/run.mjs            full run: c = 1, 10, 50; 3 rounds × 4 s per cell (~7 min)
//   node bench/overhead/run.mjs --quick    c = 1, 10; 1 round × 3 s per cell (~1.5 min)
// Options (flags, or the BENCH_* environment variable in brackets):
//   --duration=S        seconds per measurement (one round) [BENCH_DURATION]  default 4
//   --rounds=N          interleaved rounds per cell         [BENCH_ROUNDS]    default 3
//   --warmup=S          unrecorded warm-up per target×mode  [BENCH_WARMUP]    default 2
//   --concurrency=LIST  e.g. 1,10,50                       [BENCH_CONCURRENCY]
//   --modes=LIST        json,stream                        [BENCH_MODES]
//   --targets=LIST      direct,bare-https,bare-http,gateway,portkey  [BENCH_TARGETS] (direct is always run: it is the baseline)
//   --chunk-delay-ms=N  fixed delay between the mock's SSE events (default 0: setImmediate only) [BENCH_CHUNK_DELAY_MS]
//   --no-build          do not build the gateway first (scripts/build-server.mjs)  [BENCH_NO_BUILD=1]
//   --keep              keep the temp dir (logs, gateway data dir)
// Exit code: 0 when every target answered correctly with only 2xx responses; 1 otherwise (the
// report is printed in full either way); 130 on Ctrl-C.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTargets, startUpstream, portkeyEntry, TARGET_IDS } from './lib/targets.mjs';
import { buildGateway } from './lib/gateway-process.mjs';
import { measureTargets } from './lib/measure-targets.mjs';
import { stopAll, killAllSync, runMain } from './lib/processes.mjs';
import { withAddedLatency, runsTable, computeRatios, ratiosTable, floorMisses, writeJson } from './lib/report.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '../..');

function parseOptions(argv) {
  const flag = (name) => argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  const value = (name, envName, fallback) => {
    const hit = flag(name);
    if (hit && hit.includes('=')) return hit.slice(hit.indexOf('=') + 1);
    return process.env[envName] || fallback;
  };
  const list = (s) =>
    String(s)
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  if (flag('help') || flag('h')) {
    process.stdout.write(
      readFileSync(fileURLToPath(import.meta.url), 'utf8')
        .split('\n')
        .slice(1, 19)
        .map((l) => l.replace(/^\/\/ ?/, ''))
        .join('\n') + '\n',
    );
    process.exit(0);
  }
  const quick = Boolean(flag('quick')) || process.env.BENCH_QUICK === '1';
  const known = new Set([
    'quick',
    'duration',
    'rounds',
    'warmup',
    'concurrency',
    'modes',
    'targets',
    'chunk-delay-ms',
    'no-build',
    'keep',
    'help',
  ]);
  for (const a of argv) {
    const name = a.replace(/^--/, '').split('=')[0];
    if (!a.startsWith('--') || !known.has(name)) throw new Error(`unknown argument "${a}" (see --help)`);
  }
  const options = {
    quick,
    durationS: Number(value('duration', 'BENCH_DURATION', quick ? 3 : 4)),
    rounds: Number(value('rounds', 'BENCH_ROUNDS', quick ? 1 : 3)),
    warmupS: Number(value('warmup', 'BENCH_WARMUP', quick ? 1 : 2)),
    concurrencies: list(value('concurrency', 'BENCH_CONCURRENCY', quick ? '1,10' : '1,10,50')).map(Number),
    modes: list(value('modes', 'BENCH_MODES', 'json,stream')),
    targets: list(value('targets', 'BENCH_TARGETS', TARGET_IDS.join(','))),
    chunkDelayMs: Number(value('chunk-delay-ms', 'BENCH_CHUNK_DELAY_MS', 0)),
    build: !flag('no-build') && process.env.BENCH_NO_BUILD !== '1',
    keep: Boolean(flag('keep')),
  };
  if (!(options.durationS > 0 && options.durationS <= 120)) throw new Error('--duration must be in (0, 120] seconds');
  if (!(Number.isInteger(options.rounds) && options.rounds >= 1 && options.rounds <= 20))
    throw new Error('--rounds must be an integer in [1, 20]');
  if (!(options.warmupS >= 0 && options.warmupS <= 60)) throw new Error('--warmup must be in [0, 60] seconds');
  if (!options.concurrencies.length || options.concurrencies.some((c) => !Number.isInteger(c) || c < 1 || c > 1000))
    throw new Error('--concurrency must list integers in [1, 1000]');
  if (options.modes.some((m) => m !== 'json' && m !== 'stream')) throw new Error('--modes takes json and/or stream');
  if (options.targets.some((t) => !TARGET_IDS.includes(t))) throw new Error(`--targets takes ${TARGET_IDS.join(', ')}`);
  if (!options.targets.includes('direct')) options.targets.unshift('direct');
  options.targets = TARGET_IDS.filter((t) => options.targets.includes(t)); // direct first, fixed order
  return options;
}

const log = (line) => process.stderr.write(`· ${line}\n`);

/** Installs autocannon and @portkey-ai/gateway into bench/overhead/node_modules when missing. */
function ensureDependencies() {
  const needed = [join(benchDir, 'node_modules/autocannon/package.json'), portkeyEntry(benchDir)];
  if (needed.every((file) => existsSync(file))) return;
  log('installing benchmark dependencies: npm install --prefix bench/overhead (first run only)');
  const result = spawnSync('npm', ['install', '--prefix', benchDir, '--no-audit', '--no-fund'], {
    cwd: repoRoot,
    stdio: ['ignore', 2, 2],
    timeout: 300_000,
  });
  if (result.status !== 0 || !needed.every((file) => existsSync(file)))
    throw new Error(`npm install --prefix bench/overhead failed (exit ${result.status})`);
}

function machineLine() {
  const list = cpus();
  return `${list.length} cores (${list[0]?.model?.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  const loadBefore = loadavg();
  const totalRuns = options.targets.length * options.modes.length * options.concurrencies.length * options.rounds;
  const plannedS = totalRuns * options.durationS + options.targets.length * options.modes.length * options.warmupS;
  // Hard stop: whatever happens, the benchmark ends by itself and takes its children with it.
  const watchdogMs = (plannedS * 2 + 300) * 1000;
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench/overhead: still running after ${watchdogMs / 1000} s, giving up\n`);
    killAllSync();
    process.exit(1);
  }, watchdogMs);
  watchdog.unref();

  ensureDependencies();
  let buildMs = null;
  let buildError = null;
  if (options.targets.includes('gateway') && options.build) {
    log('building the gateway: scripts/build-server.mjs');
    try {
      buildMs = await buildGateway(repoRoot);
    } catch (error) {
      // The other targets still run; the gateway is reported as failed with the compiler output.
      buildError = error.message;
      log(`gateway: ${buildError.split('\n').slice(0, 6).join('\n  ')}`);
    }
  }

  const tmpDir = (cleanup.tmpDir = mkdtempSync(join(tmpdir(), 'bench-overhead-')));
  cleanup.keep = options.keep;
  const logDir = join(tmpDir, 'logs');
  mkdirSync(logDir);
  const childEnv = { ...process.env };
  delete childEnv.NODE_OPTIONS;
  const ctx = { repoRoot, benchDir, tmpDir, logDir, childEnv, upstream: null };

  log(
    `planned: ${totalRuns} measurements × ${options.durationS} s + warm-ups ≈ ${Math.round(plannedS)} s of load; temp dir ${tmpDir}`,
  );
  ctx.upstream = await startUpstream(ctx, options.chunkDelayMs);
  log(`mock upstream ${ctx.upstream.url} (pid ${ctx.upstream.pid})`);

  const targets = makeTargets(ctx, options.targets);
  const { runs, failures, targetInfo } = await measureTargets(ctx, targets, options, buildError, log);
  await ctx.upstream.stop();
  clearTimeout(watchdog);

  withAddedLatency(runs);
  const ratios = computeRatios(runs, options.modes, options.concurrencies, failures);
  const finished = new Date();

  const out = [];
  out.push(`bench/overhead — ${started.toISOString()}`);
  out.push(`machine: ${machineLine()}`);
  out.push(
    `CPU limit: the bench (autocannon), the mock upstream and the target each run in their own process, ` +
      `three busy processes on ${cpus().length} cores: throughput numbers are CPU-bound and shared; compare ratios from the same run only.`,
  );
  out.push(
    `load: autocannon, closed loop, keep-alive, concurrency ${options.concurrencies.join('/')}; per cell ${options.rounds} round(s) × ${options.durationS} s, ` +
      `targets interleaved in rotated order each round, after a ${options.warmupS} s warm-up per target×mode; latency = time to the last byte of the response ` +
      `(whole SSE stream in stream mode), 2xx only, µs resolution, percentiles over all rounds' samples; req/s = median of the rounds; ` +
      `"+p50/+p99" = target minus direct at the same mode and concurrency.`,
  );
  out.push(
    `mock upstream: fixed chat.completion; stream = 10 chat.completion.chunk events + usage chunk + [DONE], one write each, ` +
      (options.chunkDelayMs > 0 ? `${options.chunkDelayMs} ms apart.` : 'no delay (setImmediate between writes).'),
  );
  out.push(
    `protocols: direct HTTP; bare-https and gateway HTTPS (self-signed EC P-256, keep-alive, certificates not verified by the load generator); ` +
      `bare-http and portkey plain HTTP (Portkey ships HTTP only — compare it with bare-http). RSS MB = peak VmRSS of the target's server process during the measurement ` +
      `(for direct: the mock upstream).`,
  );
  const measured = runs.filter((r) => !r.failed);
  const worstForeign = measured.length ? Math.max(...measured.map((r) => r.foreignCpu)) : 0;
  out.push(
    `other load: 1-min load average ${loadBefore[0].toFixed(2)} before the run; CPU used by processes other than the bench, mock and target ` +
      `during the measurements: at most ${(worstForeign * 100).toFixed(0)}% of the machine` +
      (worstForeign > 0.1
        ? ' — OTHER WORK WAS COMPETING FOR THE CPU: treat these numbers as noisy (column "other%").'
        : '.'),
  );
  if (buildMs !== null) out.push(`gateway build (scripts/build-server.mjs) took ${(buildMs / 1000).toFixed(1)} s`);
  for (const mode of options.modes) {
    out.push('');
    out.push(`== ${mode} ==`);
    out.push(runsTable(runs, targets, mode, options.concurrencies));
  }
  out.push('');
  out.push('== target processes ==');
  for (const target of targets) {
    const info = targetInfo[target.id];
    if (info.error) out.push(`${target.id.padEnd(12)} FAILED: ${info.error.split('\n')[0]}`);
    else
      out.push(
        `${target.id.padEnd(12)} ${target.label}; pid ${info.pid}; idle RSS ${(info.idleRssKiB / 1024).toFixed(1)} MB; peak RSS over the whole run (VmHWM) ${(info.processPeakKiB / 1024).toFixed(1)} MB` +
          (info.note ? `; ${info.note}` : ''),
      );
  }
  const gw = targetInfo.gateway;
  const pk = targetInfo.portkey;
  out.push('');
  out.push('== ratios (same run) ==');
  out.push(ratiosTable(ratios, options.modes, options.concurrencies));
  if (gw && pk && !gw.error && !pk.error) {
    const v = gw.processPeakKiB / pk.processPeakKiB;
    out.push(`gateway VmHWM ÷ portkey VmHWM (whole run)  ≤ 0.5  ${v.toFixed(2)} ${v <= 0.5 ? 'ok' : 'MISS'}`);
  }
  out.push(
    '("ok"/"MISS": against the issue\'s acceptance target; "!": that cell\'s runs had non-2xx responses or errors; n/a: a side failed or was not run)',
  );
  const unreachable = floorMisses(ratios);
  if (unreachable.length) {
    out.push('');
    out.push(
      'targets the bare HTTPS pass-through (the floor) misses too in this run — out of reach for any Node gateway here:',
    );
    for (const m of unreachable)
      out.push(
        `  [${m.mode}] c=${m.connections} ${m.ratio} ${m.target}: floor ${m.floor.toFixed(2)}, gateway ${m.gateway === null ? 'n/a' : m.gateway.toFixed(2)}`,
      );
  }

  const problems = [];
  for (const [where, what] of Object.entries(failures)) problems.push(`${where}: ${what.split('\n')[0]}`);
  for (const run of runs)
    if (!run.failed && (run.non2xx > 0 || run.errors > 0))
      problems.push(
        `${run.target} ${run.mode} c=${run.connections}: ${run.non2xx} non-2xx ${JSON.stringify(run.statusCodes)}, ${run.errors} errors`,
      );
  out.push('');
  if (problems.length) {
    out.push(`== PROBLEMS (${problems.length}) ==`);
    out.push(...problems);
  } else out.push('no failures, no non-2xx responses, no errors');

  const file = writeJson(join(repoRoot, 'bench/.results'), {
    benchmark: 'overhead',
    started: started.toISOString(),
    finished: finished.toISOString(),
    machine: machineLine(),
    cores: cpus().length,
    options,
    build_ms: buildMs,
    targets: targetInfo,
    runs,
    ratios,
    floor_misses: unreachable,
    problems,
  });
  out.push('');
  out.push(`results: ${file.slice(repoRoot.length + 1)}`);
  process.stdout.write(out.join('\n') + '\n');

  if (problems.length && !options.keep) options.keep = true;
  if (options.keep) process.stderr.write(`kept ${tmpDir} (logs in ${logDir})\n`);
  else rmSync(tmpDir, { recursive: true, force: true });
  return problems.length ? 1 : 0;
}

const cleanup = { tmpDir: null, keep: false };
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\nbench/overhead: ${signal}, stopping child processes\n`);
    stopAll().finally(() => {
      if (cleanup.tmpDir && !cleanup.keep) rmSync(cleanup.tmpDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
}
runMain(main, (error) => `bench/overhead: ${error.stack ?? error.message}\n`);
