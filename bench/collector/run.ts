/**
 * Collector throughput on SQLite: accepted events per second at POST /_gateway/event.
 *
 *   node --import tsx bench/collector/run.ts [--seconds 10] [--events-per-request 10] [--connections 32] [--component warehouse|webhook|none]
 *
 * Starts `gateway serve` as a child process on a temporary SQLite store (so the gateway has its
 * own process, as in production), creates a project with one data-collection component, then
 * drives HTTPS load from this process for a fixed time. Only 202 answers count: an event is
 * counted when the gateway has committed it (and its outbox row) to the database. The load
 * generator runs on the same machine and competes with the gateway for the CPU cores; the report
 * gives the CPU time of both and the machine's load average, since other work on the machine
 * moves events per second far more than it moves the gateway's CPU time per event.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../../src/store/database.js';
import { compileGateway } from '../support/spawn-gateway.js';
import { collectorPool, eventRequest, postEvent, startCollectorGateway } from './lib/collector-gateway.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    'events-per-request': { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    component: { type: 'string', default: 'warehouse' },
  },
});
const SECONDS = Number(values.seconds);
const PER_REQUEST = Number(values['events-per-request']);
const CONNECTIONS = Number(values.connections);

const dataDir = mkdtempSync(join(tmpdir(), 'bench-collector-'));
const build = compileGateway();
const domain = 'bench.example.test';
const { gateway, ca } = await startCollectorGateway({
  dataDir,
  env: {
    GATEWAY_WEBHOOK_ALLOW_PRIVATE: '1',
    // bench.example.test is a test name: served without an ownership check in development mode only.
    GATEWAY_ENV: 'development',
    // One client address at full speed is the flood the rate limits refuse (bench/collector/flood.ts
    // measures that): off here, so this measures the intake path. The stored-event quota stays on.
    GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
    GATEWAY_COLLECTOR_ADDRESS_BURST: '0',
    GATEWAY_COLLECTOR_PROJECT_RATE: '0',
    GATEWAY_COLLECTOR_PROJECT_BURST: '0',
    // Read by bench/collector/cpu-profile.mjs when it is preloaded through BENCH_GATEWAY_NODE_OPTIONS.
    ...(process.env.BENCH_CPU_PROFILE_DIR ? { BENCH_CPU_PROFILE_DIR: process.env.BENCH_CPU_PROFILE_DIR } : {}),
  },
  entry: build?.entry,
  project: { slug: 'bench', name: 'Bench', domain },
  // A webhook to a closed local port keeps failing: this measures intake plus outbox writes, with retries in the background.
  components:
    values.component === 'none'
      ? []
      : [
          {
            component_slug: `gateway/${values.component}`,
            settings: values.component === 'webhook' ? { url: 'http://127.0.0.1:9/hook' } : {},
          },
        ],
});
const urls = gateway.urls;

const body = JSON.stringify({
  data_collection: {
    context: {
      client: { timezone: 'Europe/Paris', screen_width: 1440, screen_height: 900 },
      page: { url: 'https://bench.example.test/', title: 'Bench' },
    },
    events: Array.from({ length: PER_REQUEST }, (_, i) => ({
      type: i % 3 === 0 ? 'page' : 'track',
      data: i % 3 === 0 ? { path: '/' } : { name: 'click', properties: { i } },
    })),
  },
});

/** CPU seconds (user + system) a process has used so far, from /proc; undefined off Linux. */
function processCpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

const pool = collectorPool(urls.collector, ca, { connections: CONNECTIONS });
const event = eventRequest(domain, body);
const post = () => postEvent(pool, event);

let accepted = 0;
let errors = 0;
const latencies: number[] = [];
const loadBefore = loadavg()[0]!;
const gatewayCpuBefore = processCpuSeconds(gateway.child.pid);
const generatorCpuBefore = process.cpuUsage();
const until = Date.now() + SECONDS * 1000;
const started = Date.now();
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < until) {
      const t0 = performance.now();
      try {
        if ((await post()) === 202) accepted += PER_REQUEST;
        else errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  }),
);
const gatewayCpuAfter = processCpuSeconds(gateway.child.pid);
const generatorCpu = process.cpuUsage(generatorCpuBefore);
const loadAfter = loadavg()[0]!;
const elapsed = (Date.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))]!.toFixed(1);

await gateway.stop();
build?.cleanup();
const check = await openStore({ dataDir });
const stored = await check.db
  .selectFrom('collected_events')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .executeTakeFirstOrThrow();
const warehouse = await check.db
  .selectFrom('warehouse_events')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .executeTakeFirstOrThrow();
const outbox = await check.db
  .selectFrom('event_deliveries')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .executeTakeFirstOrThrow();
await check.close();
await pool.close();
const gatewayCpuSeconds =
  gatewayCpuBefore !== undefined && gatewayCpuAfter !== undefined ? gatewayCpuAfter - gatewayCpuBefore : undefined;
rmSync(dataDir, { recursive: true, force: true });

console.log(
  JSON.stringify(
    {
      benchmark: 'collector',
      store: 'sqlite',
      gateway_runtime: gateway.runtime,
      cores: cpus().length,
      seconds: Number(elapsed.toFixed(2)),
      connections: CONNECTIONS,
      events_per_request: PER_REQUEST,
      component: values.component,
      accepted_events: accepted,
      accepted_events_per_second: Math.round(accepted / elapsed),
      requests_per_second: Math.round(latencies.length / elapsed),
      errors,
      latency_ms: { p50: Number(pct(50)), p99: Number(pct(99)) },
      // CPU per accepted event is what a change to the intake path moves; it varies far less with
      // other load on a shared machine than events per second do.
      gateway_cpu_seconds: gatewayCpuSeconds === undefined ? null : Number(gatewayCpuSeconds.toFixed(2)),
      gateway_cpu_us_per_event:
        gatewayCpuSeconds === undefined || accepted === 0 ? null : Math.round((gatewayCpuSeconds * 1e6) / accepted),
      generator_cpu_seconds: Number(((generatorCpu.user + generatorCpu.system) / 1e6).toFixed(2)),
      load_average_1m: { before: Number(loadBefore.toFixed(2)), after: Number(loadAfter.toFixed(2)) },
      stored_events: Number(stored.n),
      warehouse_events_after_stop: Number(warehouse.n),
      outbox_rows_after_stop: Number(outbox.n),
      note: 'load generator and gateway share the machine; a 1-minute load average above the core count means other processes took CPU too',
    },
    null,
    2,
  ),
);
