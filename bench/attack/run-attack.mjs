// One attack against a fresh gateway: the normal client on the idle service, then the same
// client while the attacker (attacker.mjs, its own process) runs, and the result of the two.
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatewayProcess } from '../overhead/lib/gateway-process.mjs';
import { execFileSync } from 'node:child_process';
import {
  machineTicks,
  memoryOf,
  processTicks,
  runQueueWaitNs,
  sleep,
  spawnNode,
  stopChild,
  tail,
} from '../overhead/lib/processes.mjs';
import { NormalClient, summarize } from './normal-client.mjs';
import { fmt, pct } from './report.mjs';
import {
  COLLECTOR_HOST,
  configuredQuota,
  connectionMetrics,
  databaseBytes,
  eventLoopLag,
  scrapeMetrics,
  setUpCollector,
  storedEvents,
} from './service-probes.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '../..');
/** Targets of the acceptance (issue 16): under slowloris, flood and big-token payloads. */
const TARGETS = { successRate: 0.99, p99Ratio: 3 };
const JUDGED = new Set(['slowloris', 'flood', 'bigtoken']);

function attackOptions(name, options, service) {
  const hostPort = (url) => new URL(url).host;
  switch (name) {
    case 'slowloris':
      return {
        kind: 'slowloris',
        targets: [hostPort(service.urls.gateway), hostPort(service.urls.console), hostPort(service.urls.collector)],
        slow: options.slow,
        idle: options.idleConnections,
        addresses: options.addresses,
        dribbleMs: options.dribbleMs,
        maxConnecting: 200,
      };
    case 'flood':
      return {
        kind: 'flood',
        collector: service.urls.collector,
        host: COLLECTOR_HOST,
        connections: options.floodConnections,
        addresses: options.floodAddresses,
        addressBlock: 3,
        eventsPerRequest: 10,
      };
    case 'bigtoken':
      return {
        kind: 'bigtoken',
        gateway: service.urls.gateway,
        key: service.key,
        bytes: options.bigTokenBytes,
        char: 'a',
        loops: 2,
        timeoutMs: 60_000,
        addresses: 1,
        addressBlock: 4,
      };
    case 'nested':
      return {
        kind: 'nested',
        gateway: service.urls.gateway,
        collector: service.urls.collector,
        host: COLLECTOR_HOST,
        key: service.key,
        depth: options.depth,
        loops: 2,
        timeoutMs: 30_000,
        addresses: 1,
        addressBlock: 5,
      };
  }
  throw new Error(name);
}

/** Is the attack at full strength? Slowloris needs its connections open; the others start at once. */
function attackReady(name, stats, options) {
  if (name !== 'slowloris') return true;
  const open = (stats?.extra.open_slow ?? 0) + (stats?.extra.open_idle ?? 0);
  return open >= 0.9 * (options.slow + options.idleConnections);
}

export async function runAttack(name, options, ctx, log) {
  const service = await startGatewayProcess(ctx, { name: `gateway-${name}`, env: options.gatewayEnv });
  try {
    // Threads started later (the worker pool) inherit the main thread's CPUs.
    if (options.gatewayCpus) execFileSync('taskset', ['-a', '-p', '-c', options.gatewayCpus, String(service.pid)]);
    await setUpCollector(service);
    const client = new NormalClient(service);
    client.start(options.rate);
    await sleep(3000); // warm-up: tokenizer load, JIT, first connections
    await scrapeMetrics(service); // resets the event-loop delay histogram
    client.record();
    const idleTicks = machineTicks();
    const idleGatewayTicks = processTicks(service.pid);
    const idleWait = runQueueWaitNs(service.pid);
    const idleWaitStarted = performance.now();
    const idleMemory = [];
    const idleSampler = setInterval(() => idleMemory.push(memoryOf(service.pid).rssKiB), 500);
    await sleep(options.idleSeconds * 1000);
    clearInterval(idleSampler);
    const idleLag = eventLoopLag(await scrapeMetrics(service));
    const idleQueued = waitShare(service.pid, idleWait, idleWaitStarted);
    const idle = summarize(await client.takeSamples());
    const idleBusy = busyShare(idleTicks);
    const idleGatewayCpu = cpuShare(service.pid, idleGatewayTicks, idleTicks);
    log(
      `  ${name}: idle p50 ${fmt(idle.p50)} ms, p99 ${fmt(idle.p99)} ms, ${pct(idle.successRate)} ok (${idle.n} requests)`,
    );

    const dbBefore = databaseBytes(service.dataDir);
    const storedBefore = storedEvents(service.dataDir);
    const metricsBefore = connectionMetrics(await scrapeMetrics(service));
    const attacker = spawnNode(
      `attacker-${name}`,
      [join(benchDir, 'attacker.mjs'), JSON.stringify(attackOptions(name, options, service))],
      {
        cwd: repoRoot,
        env: ctx.childEnv,
        logDir: ctx.logDir,
        ipc: true,
      },
    );
    let last;
    let final;
    attacker.child.on('message', (m) => {
      if (m.type === 'stats') last = m;
      if (m.type === 'final') final = m;
    });
    const rampStarted = Date.now();
    while (!attackReady(name, last, options) && Date.now() - rampStarted < 90_000) {
      if (attacker.exited) throw new Error(`attacker exited: ${tail(attacker.errFile)}`);
      await sleep(500);
    }
    const rampSeconds = (Date.now() - rampStarted) / 1000;
    // The service may keep the attack below strength (slowloris against the penalty box): measured anyway.
    const ready = attackReady(name, last, options) ? 'at strength' : 'NOT at full strength (measured anyway)';
    log(`  ${name}: attack ${ready} after ${rampSeconds.toFixed(1)} s ${JSON.stringify(last?.extra ?? {})}`);

    await scrapeMetrics(service);
    client.record();
    const attackTicks = machineTicks();
    const attackGatewayTicks = processTicks(service.pid);
    const attackWait = runQueueWaitNs(service.pid);
    const attackWaitStarted = performance.now();
    const attackerTicks = processTicks(attacker.pid);
    const rss = [];
    const held = [];
    const sampler = setInterval(() => {
      rss.push(memoryOf(service.pid).rssKiB);
      if (last?.extra.open_slow !== undefined) held.push(last.extra.open_slow + last.extra.open_idle);
    }, 500);
    const countersAtStart = last?.counters ?? {};
    await sleep(options.attackSeconds * 1000);
    clearInterval(sampler);
    const attackLag = eventLoopLag(await scrapeMetrics(service));
    const attackQueued = waitShare(service.pid, attackWait, attackWaitStarted);
    const underAttack = summarize(await client.takeSamples());
    const attackBusy = busyShare(attackTicks);
    const attackGatewayCpu = cpuShare(service.pid, attackGatewayTicks, attackTicks);
    const attackerCpu = cpuShare(attacker.pid, attackerTicks, attackTicks);
    const countersAtEnd = last?.counters ?? {};
    attacker.child.send('stop');
    const stopUntil = Date.now() + 15_000;
    while (!final && !attacker.exited && Date.now() < stopUntil) await sleep(100);
    await stopChild(attacker, 5_000);
    await client.stop();
    const dbAfter = databaseBytes(service.dataDir);
    const storedAfter = storedEvents(service.dataDir);
    const quota = configuredQuota(options.gatewayEnv);
    const metricsAfter = connectionMetrics(await scrapeMetrics(service));
    const connectionCounts = Object.fromEntries(
      Object.entries(metricsAfter).map(([k, v]) => [k, v - (metricsBefore[k] ?? 0)]),
    );
    const result = {
      attack: name,
      options: attackOptions(name, options, { ...service, key: '(redacted)' }),
      rampSeconds,
      idle,
      underAttack,
      p99Ratio: underAttack.p99 / idle.p99,
      eventLoopLagMs: { idle: idleLag, attack: attackLag },
      // Milliseconds per second the gateway's main thread was runnable but waited for a core.
      mainThreadQueuedMsPerS: { idle: idleQueued, attack: attackQueued },
      rssMiB: {
        idleMax: Math.max(...idleMemory) / 1024,
        attackMax: Math.max(...rss) / 1024,
      },
      database: { beforeBytes: dbBefore, afterBytes: dbAfter, growthBytes: dbAfter - dbBefore },
      // The quota is per project; the bench has one, so the totals are that project's.
      stored: {
        before: storedBefore,
        after: storedAfter,
        quota,
        withinQuota:
          (quota.events === 0 || storedAfter.events <= quota.events) &&
          (quota.bytes === 0 || storedAfter.bytes <= quota.bytes),
      },
      held: held.length ? { min: Math.min(...held), mean: held.reduce((a, b) => a + b, 0) / held.length } : undefined,
      attacker: {
        final: final?.counters,
        statuses: final?.statuses,
        duringMeasurement: Object.fromEntries(
          Object.entries(countersAtEnd)
            .filter(([k]) => k !== 'started')
            .map(([k, v]) => [k, v - (countersAtStart[k] ?? 0)]),
        ),
      },
      connectionCounts,
      machineBusy: { idle: idleBusy, attack: attackBusy },
      // Shares of one core: 1.0 = a whole core.
      cpuCores: { gatewayIdle: idleGatewayCpu, gatewayAttack: attackGatewayCpu, attacker: attackerCpu },
    };
    result.judged = JUDGED.has(name);
    result.pass = result.judged
      ? underAttack.successRate >= TARGETS.successRate &&
        result.p99Ratio <= TARGETS.p99Ratio &&
        (name !== 'flood' || result.stored.withinQuota)
      : null;
    log(
      `  ${name}: under attack p50 ${fmt(underAttack.p50)} ms, p99 ${fmt(underAttack.p99)} ms (×${result.p99Ratio.toFixed(2)} idle), ` +
        `${pct(underAttack.successRate)} ok, RSS ${result.rssMiB.idleMax.toFixed(0)} → ${result.rssMiB.attackMax.toFixed(0)} MiB, ` +
        `DB +${(result.database.growthBytes / 1048576).toFixed(1)} MiB`,
    );
    return result;
  } finally {
    await service.stop();
  }
}

/** Milliseconds per second of wall time the process's main thread waited for a CPU since `startNs`. */
function waitShare(pid, startNs, startedAt) {
  return (runQueueWaitNs(pid) - startNs) / 1e6 / ((performance.now() - startedAt) / 1000);
}

/** Cores one process used since `startTicks` (machine ticks count all cores: × the core count). */
function cpuShare(pid, processStart, machineStart) {
  const end = machineTicks();
  const wallTicksPerCore = (end.total - machineStart.total) / cpus().length;
  return (processTicks(pid) - processStart) / wallTicksPerCore;
}

function busyShare(startTicks) {
  const end = machineTicks();
  return (end.busy - startTicks.busy) / (end.total - startTicks.total);
}
