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
//   --no-build              do not build the gateway first (scripts/build-server.mjs)
//   --keep                  keep the temp dir (logs, gateway data dirs)
// Exit code 0 when every measured target is met, 1 otherwise, 130 on Ctrl-C.
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Agent, request } from 'undici';
import { buildGateway, fetchText, startGatewayProcess, startUpstream } from '../overhead/lib/targets.mjs';
import {
  killAllSync,
  machineTicks,
  memoryOf,
  processTicks,
  sleep,
  spawnNode,
  stopAll,
  stopChild,
  tail,
} from '../overhead/lib/processes.mjs';
import { writeJson } from '../overhead/lib/report.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(benchDir, '../..');
const ATTACKS = ['slowloris', 'flood', 'bigtoken', 'nested'];
const COLLECTOR_HOST = 'attack.bench.test';
const NORMAL_TIMEOUT_MS = 10_000;
/** Targets of the acceptance (issue 16): under slowloris, flood and big-token payloads. */
const TARGETS = { successRate: 0.99, p99Ratio: 3 };
const JUDGED = new Set(['slowloris', 'flood', 'bigtoken']);

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
// The normal client: an open-loop mix of what real clients do, on keep-alive connections like
// the SDKs, plus one request in five on a fresh connection (a new client must get in too).
class NormalClient {
  constructor(service) {
    this.service = service;
    this.dispatcher = new Agent({
      connect: { rejectUnauthorized: false },
      keepAliveTimeout: 30_000,
      headersTimeout: NORMAL_TIMEOUT_MS,
      bodyTimeout: NORMAL_TIMEOUT_MS,
    });
    this.window = undefined;
    this.inFlight = 0;
    this.n = 0;
  }

  kinds() {
    const { urls, key } = this.service;
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    return [
      {
        kind: 'chat',
        url: `${urls.gateway}/v1/chat/completions`,
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
          max_tokens: 32,
        }),
      },
      {
        kind: 'count_tokens',
        url: `${urls.gateway}/v1/count_tokens`,
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          model: 'openai/gpt-4o-mini',
          messages: [{ role: 'user', content: 'How many tokens is this sentence?' }],
        }),
      },
      { kind: 'models', url: `${urls.gateway}/v1/models`, method: 'GET', headers: auth },
      {
        kind: 'event',
        url: `${urls.collector}/_gateway/event`,
        method: 'POST',
        headers: { host: COLLECTOR_HOST, 'content-type': 'application/json' },
        body: JSON.stringify({
          data_collection: {
            context: { page: { url: `https://${COLLECTOR_HOST}/`, title: 'normal' } },
            events: [{ type: 'page', data: { path: '/' } }],
          },
        }),
      },
      { kind: 'models_new_connection', url: `${urls.gateway}/v1/models`, method: 'GET', headers: auth, fresh: true },
    ];
  }

  /** A request counts in the window it was sent in, however late its answer comes. */
  async one(spec, window) {
    const started = performance.now();
    let status = 0;
    let error;
    let refusal;
    try {
      if (spec.fresh) {
        const res = await fetchText(spec.url, {
          method: spec.method,
          headers: spec.headers,
          timeoutMs: NORMAL_TIMEOUT_MS,
        });
        status = res.status;
        if (status === 429) refusal = refusalScope(res.text);
      } else {
        const res = await request(spec.url, {
          method: spec.method,
          headers: spec.headers,
          body: spec.body,
          dispatcher: this.dispatcher,
        });
        status = res.statusCode;
        if (status === 429) refusal = refusalScope(await res.body.text());
        else await res.body.dump();
      }
    } catch (e) {
      error = e.code ?? e.name ?? String(e);
    }
    const ms = performance.now() - started;
    const ok = status >= 200 && status < 300;
    window?.samples.push({ kind: spec.kind, ms, ok, status, error: error ?? (refusal && `HTTP 429 (${refusal})`) });
  }

  /** Sends `rate` requests per second until stop(); samples are kept only inside a window (record … takeSamples). */
  start(rate) {
    const kinds = this.kinds();
    this.timer = setInterval(() => {
      // Open loop: a stalled service does not slow the client down, but more than 200 waiting
      // requests count as failures instead of piling up.
      const spec = kinds[this.n++ % kinds.length];
      const window = this.window;
      if (this.inFlight >= 200) {
        window?.samples.push({ kind: spec.kind, ms: NORMAL_TIMEOUT_MS, ok: false, error: 'client_backlog' });
        return;
      }
      this.inFlight++;
      if (window) window.pending++;
      this.one(spec, window).finally(() => {
        this.inFlight--;
        if (window) window.pending--;
      });
    }, 1000 / rate);
  }

  record() {
    this.window = { samples: [], pending: 0 };
  }

  /** Ends the window and waits for the answers of its requests (each times out after NORMAL_TIMEOUT_MS). */
  async takeSamples() {
    const window = this.window;
    this.window = undefined;
    const until = Date.now() + NORMAL_TIMEOUT_MS + 2000;
    while (window.pending > 0 && Date.now() < until) await sleep(50);
    return window.samples;
  }

  async stop() {
    clearInterval(this.timer);
    const until = Date.now() + NORMAL_TIMEOUT_MS + 1000;
    while (this.inFlight > 0 && Date.now() < until) await sleep(50);
    await this.dispatcher.close().catch(() => undefined);
  }
}

/** Which limit a collector 429 came from, by its message (src/collector/limits/limit-errors.ts). */
function refusalScope(text) {
  if (/client address/.test(text)) return 'address budget';
  if (/for this project/.test(text)) return 'project budget';
  if (/quota/.test(text)) return 'quota';
  return 'other';
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * p) / 100) - 1)];
}

function summarize(samples) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const failures = {};
  for (const s of samples)
    if (!s.ok) failures[s.error ?? `HTTP ${s.status}`] = (failures[s.error ?? `HTTP ${s.status}`] ?? 0) + 1;
  const byKind = {};
  for (const kind of new Set(samples.map((s) => s.kind))) {
    const of = samples.filter((s) => s.kind === kind);
    const sorted = of.map((s) => s.ms).sort((a, b) => a - b);
    byKind[kind] = {
      n: of.length,
      ok: of.filter((s) => s.ok).length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    };
  }
  return {
    n: samples.length,
    ok: samples.filter((s) => s.ok).length,
    successRate: samples.length ? samples.filter((s) => s.ok).length / samples.length : NaN,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.at(-1),
    failures,
    byKind,
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * Events and event bytes stored per project (`collected_event_totals`, what the quota is checked
 * against), read from the gateway's SQLite file while it runs (WAL: readers do not block it).
 */
function storedEvents(dataDir) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(join(dataDir, 'gateway.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        'select coalesce(sum(events), 0) as events, coalesce(sum(bytes), 0) as bytes from collected_event_totals',
      )
      .get();
    return { events: Number(row.events), bytes: Number(row.bytes) };
  } finally {
    db.close();
  }
}

/** The stored-event quota the gateway runs with: its environment, else the defaults (docs/console-api.md#limits). */
function configuredQuota(gatewayEnv) {
  const setting = (name, fallback) => (gatewayEnv[name] !== undefined ? Number(gatewayEnv[name]) : fallback);
  return {
    events: setting('GATEWAY_COLLECTOR_QUOTA_EVENTS', 1_000_000),
    bytes: setting('GATEWAY_COLLECTOR_QUOTA_BYTES', 1024 ** 3),
  };
}

function databaseBytes(dataDir) {
  let bytes = 0;
  for (const name of readdirSync(dataDir)) {
    if (name.startsWith('gateway.sqlite')) bytes += statSync(join(dataDir, name)).size;
  }
  return bytes;
}

async function scrapeMetrics(service) {
  const res = await fetchText(`${service.urls.gateway}/metrics`).catch(() => undefined);
  return res?.status === 200 ? res.text : '';
}

function connectionMetrics(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^(gateway_connections_(?:refused|timed_out)_total)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    const key = `${m[1].replace('gateway_connections_', '').replace('_total', '')}:${labels.reason ?? labels.phase}`;
    out[key] = (out[key] ?? 0) + Number(m[3]);
  }
  return out;
}

/**
 * The gateway's own event-loop delay (prom-client's monitorEventLoopDelay gauges, which every
 * scrape of /metrics resets): p99 and max in ms since the previous scrape. Measured inside the
 * service, so unlike the normal client's latency it does not include the client's own scheduling.
 */
function eventLoopLag(text) {
  const value = (name) => {
    const m = new RegExp(`^nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) * 1000 : NaN;
  };
  return { p50: value('p50'), p99: value('p99'), max: value('max') };
}

async function setUpCollector(service) {
  const { org, urls } = service;
  const res = await fetchText(`${urls.console}/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.console_token}` },
    body: JSON.stringify({ slug: 'attack', name: 'Attack bench', domains: [COLLECTOR_HOST] }),
  });
  if (res.status !== 201)
    throw new Error(`creating the collector project: HTTP ${res.status} ${res.text.slice(0, 300)}`);
}

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

async function runAttack(name, options, ctx, log) {
  const service = await startGatewayProcess(ctx, { name: `gateway-${name}`, env: options.gatewayEnv });
  try {
    await setUpCollector(service);
    const client = new NormalClient(service);
    client.start(options.rate);
    await sleep(3000); // warm-up: tokenizer load, JIT, first connections
    await scrapeMetrics(service); // resets the event-loop delay histogram
    client.record();
    const idleTicks = machineTicks();
    const idleGatewayTicks = processTicks(service.pid);
    const idleMemory = [];
    const idleSampler = setInterval(() => idleMemory.push(memoryOf(service.pid).rssKiB), 500);
    await sleep(options.idleSeconds * 1000);
    clearInterval(idleSampler);
    const idleLag = eventLoopLag(await scrapeMetrics(service));
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
    log(`  ${name}: attack at strength after ${rampSeconds.toFixed(1)} s ${JSON.stringify(last?.extra ?? {})}`);

    await scrapeMetrics(service);
    client.record();
    const attackTicks = machineTicks();
    const attackGatewayTicks = processTicks(service.pid);
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

const fmt = (n) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : 'n/a');
const pct = (r) => (Number.isFinite(r) ? `${(r * 100).toFixed(r >= 0.999 && r < 1 ? 2 : 1)} %` : 'n/a');

function report(results, meta) {
  const lines = [];
  lines.push('');
  lines.push(
    `bench/attack — ${meta.started} — ${meta.cpus} CPUs, load average ${meta.loadBefore.map((l) => l.toFixed(1)).join(' ')} at start`,
  );
  lines.push('');
  lines.push(
    '| attack | normal client ok | p50 idle → attack (ms) | p99 idle → attack (ms) | p99 ÷ idle p99 | gateway RSS idle → peak (MiB) | DB growth | gateway CPU idle → attack (cores) | attacker CPU (cores) | machine busy idle / attack | target |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const target = r.judged ? (r.pass ? 'met' : 'MISSED') : 'not judged';
    lines.push(
      `| ${r.attack} | ${pct(r.underAttack.successRate)} (idle ${pct(r.idle.successRate)}) | ${fmt(r.idle.p50)} → ${fmt(r.underAttack.p50)} | ` +
        `${fmt(r.idle.p99)} → ${fmt(r.underAttack.p99)} | ${r.p99Ratio.toFixed(2)} | ${r.rssMiB.idleMax.toFixed(0)} → ${r.rssMiB.attackMax.toFixed(0)} | ` +
        `${(r.database.growthBytes / 1048576).toFixed(1)} MiB | ${r.cpuCores.gatewayIdle.toFixed(2)} → ${r.cpuCores.gatewayAttack.toFixed(2)} | ` +
        `${r.cpuCores.attacker.toFixed(2)} | ${pct(r.machineBusy.idle)} / ${pct(r.machineBusy.attack)} | ${target} |`,
    );
  }
  lines.push('');
  for (const r of results) {
    lines.push(`${r.attack}:`);
    if (r.held)
      lines.push(`  attack connections open during the measurement: min ${r.held.min}, mean ${r.held.mean.toFixed(0)}`);
    lines.push(`  attacker during the measurement: ${JSON.stringify(r.attacker.duringMeasurement)}`);
    if (r.attacker.statuses && Object.keys(r.attacker.statuses).length)
      lines.push(`  attacker answers: ${JSON.stringify(r.attacker.statuses)}`);
    lines.push(`  service's connection counters: ${JSON.stringify(r.connectionCounts)}`);
    const { stored } = r;
    lines.push(
      `  collector events stored: ${stored.before.events} → ${stored.after.events} (${(stored.before.bytes / 1048576).toFixed(1)} → ` +
        `${(stored.after.bytes / 1048576).toFixed(1)} MiB of event JSON); quota ${stored.quota.events} events, ` +
        `${(stored.quota.bytes / 1048576).toFixed(0)} MiB: ${stored.withinQuota ? 'within' : 'EXCEEDED'}`,
    );
    const lag = r.eventLoopLagMs;
    lines.push(
      `  gateway event-loop delay p50/p99/max (ms): idle ${fmt(lag.idle.p50)}/${fmt(lag.idle.p99)}/${fmt(lag.idle.max)}, ` +
        `attack ${fmt(lag.attack.p50)}/${fmt(lag.attack.p99)}/${fmt(lag.attack.max)}`,
    );
    if (Object.keys(r.underAttack.failures).length)
      lines.push(`  normal client failures: ${JSON.stringify(r.underAttack.failures)}`);
    lines.push(
      `  normal client per kind under attack (p50/p99 ms, ok/n): ` +
        Object.entries(r.underAttack.byKind)
          .map(([k, v]) => `${k} ${fmt(v.p50)}/${fmt(v.p99)} ${v.ok}/${v.n}`)
          .join(', '),
    );
  }
  return lines.join('\n');
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
process.on('exit', killAllSync);

main().then(
  async (code) => {
    await stopAll();
    process.exit(code);
  },
  async (error) => {
    process.stderr.write(`bench/attack failed: ${error.stack ?? error}\n`);
    await stopAll();
    if (cleanup.tmpDir) process.stderr.write(`kept ${cleanup.tmpDir} (logs in ${join(cleanup.tmpDir, 'logs')})\n`);
    process.exit(1);
  },
);
