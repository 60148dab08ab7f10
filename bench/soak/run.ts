/**
 * Soak: a steady request rate for a long time, watching the gateway process for memory growth.
 *
 *   node --import tsx bench/soak/run.ts                 # 10 minutes, 40 requests/s
 *   node --import tsx bench/soak/run.ts --minutes 2     # or SOAK_MINUTES=2
 *   node --import tsx bench/soak/run.ts --rate 80 --no-build
 *   node --import tsx bench/soak/run.ts --rate 80 --heap-mb 128   # the gateway's old space capped
 *
 * Three processes, all on 127.0.0.1: the mock upstream (bench/soak/mock-upstream.ts), the gateway
 * (`gateway serve` compiled to JavaScript, SQLite in a temp dir; `--no-build` runs it under tsx),
 * and this load generator. Open loop: requests start on a fixed schedule whatever the answers
 * do (at most --max-in-flight outstanding; beyond that a request is counted as `skipped`), mixed
 * 40 % chat JSON, 30 % chat streamed, 15 % /v1/count_tokens, 15 % /v1/compress, over a key with a
 * monthly ceiling and one without. Every 5 s the gateway's RSS is read from /proc/<pid>/status and
 * its /metrics scraped (heap used and total, event-loop delay, connections, queued handshakes,
 * buffered upstream bytes). `--heap-mb N` starts the gateway with --max-old-space-size=N.
 *
 * Reports per minute: requests, errors by kind, p50/p99 latency (full response), RSS and the
 * /metrics figures; and the slope of a least-squares line through the RSS samples after the first
 * and after the second minute (MB per minute; near zero means no growth trend). Writes JSON to bench/.results/soak-<time>.json. Every child
 * is killed on exit, also on Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { REPO, compileGateway, spawnGateway, type SpawnedGateway } from '../support/spawn-gateway.js';
import { seedOrganization } from '../support/seed-organization.js';
import { emptyMinute, printMinute, round, slope, summarizeMinute, type Minute } from './minute-stats.js';
import { MIX, requestFor, type Kind } from './requests.js';
import { scrapeMetrics } from './metrics-sample.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env.SOAK_MINUTES ?? '10' },
    rate: { type: 'string', default: process.env.SOAK_RATE ?? '40' },
    'max-in-flight': { type: 'string', default: '200' },
    'no-build': { type: 'boolean', default: false },
    'heap-mb': { type: 'string' },
  },
});
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const MAX_IN_FLIGHT = Number(values['max-in-flight']);
const HEAP_MB = values['heap-mb'] === undefined ? undefined : Number(values['heap-mb']);
if (!(MINUTES > 0) || !(RATE > 0)) throw new Error('--minutes and --rate must be positive numbers');
if (HEAP_MB !== undefined && !(Number.isInteger(HEAP_MB) && HEAP_MB > 0))
  throw new Error('--heap-mb must be a positive whole number of MB');
const DURATION_MS = Math.round(MINUTES * 60_000);
const RSS_EVERY_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;

const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];
function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
}
process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});
process.on('exit', killAll);

async function startMock(): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'soak', 'mock-upstream.ts')], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0]!) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`mock upstream exited (${code})`)));
  });
}

function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

// ---- set-up ------------------------------------------------------------------------------------

const dataDir = mkdtempSync(join(tmpdir(), 'bench-soak-'));
cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
const mockUrl = await startMock();
writeFileSync(
  join(dataDir, 'gateway-config.json'),
  JSON.stringify({
    providers: [{ id: 'mock', kind: 'openai', base_url: mockUrl, api_key_env: 'MOCK_KEY' }],
    models: [
      {
        id: 'openai/gpt-4o-mini',
        providers: [{ provider: 'mock', model: 'gpt-4o-mini' }],
        pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
      },
    ],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  }),
);
const { organizationId, token: consoleToken } = await seedOrganization(dataDir, 'soak', 'Soak');

const build = values['no-build'] ? undefined : compileGateway();
if (build) cleanups.push(build.cleanup);
const gateway: SpawnedGateway = await spawnGateway(
  {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PORT: '0',
    CONSOLE_PORT: '0',
    COLLECTOR_PORT: '0',
    GATEWAY_CONFIG: join(dataDir, 'gateway-config.json'),
    MOCK_KEY: 'sk-soak',
  },
  build?.entry,
  HEAP_MB === undefined ? [] : [`--max-old-space-size=${HEAP_MB}`],
);
children.push(gateway.child);
const pid = gateway.child.pid!;
const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
const dispatcher = new Agent({ connect: { ca }, connections: 64, keepAliveTimeout: 10_000 });

async function createKey(body: Record<string, unknown>): Promise<string> {
  const response = await request(`${gateway.urls.console}/v1/organizations/${organizationId}/api_keys`, {
    method: 'POST',
    dispatcher,
    headers: { authorization: `Bearer ${consoleToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.body.json()) as { key?: string };
  if (response.statusCode !== 201 || !json.key)
    throw new Error(`could not create a key: ${response.statusCode} ${JSON.stringify(json)}`);
  return json.key;
}
const keys = [await createKey({ name: 'soak capped', max_usage: 1_000_000 }), await createKey({ name: 'soak open' })];

const minutes: Minute[] = [];
const minuteOf = (at: number): Minute => (minutes[Math.floor(at / 60_000)] ??= emptyMinute());
const rssSamples: Array<[number, number]> = [];

let inFlight = 0;
async function fire(kind: Kind, n: number, startedAt: number): Promise<void> {
  const minute = minuteOf(startedAt - t0);
  minute.requests++;
  const { path, body } = requestFor(kind, n);
  const started = performance.now();
  let failure: string | undefined;
  try {
    const response = await request(gateway.urls.gateway + path, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${keys[n % keys.length]}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) failure = `http_${response.statusCode}`;
    else if (kind === 'stream' && !text.trimEnd().endsWith('data: [DONE]')) failure = 'stream_incomplete';
  } catch (error) {
    failure = `client_${(error as { code?: string }).code ?? 'error'}`;
  }
  const ms = performance.now() - started;
  if (failure) minute.errors[failure] = (minute.errors[failure] ?? 0) + 1;
  else {
    minute.ok++;
    minute.latencies.push(ms);
    minute.byKind[kind].push(ms);
  }
}

// ---- the run -----------------------------------------------------------------------------------

console.log(
  `soak: ${MINUTES} min at ${RATE} req/s${HEAP_MB === undefined ? '' : `, heap capped at ${HEAP_MB} MB`} (${MIX.map(([k, w]) => `${k} ${w * 100}%`).join(', ')}), gateway pid ${pid} (${gateway.runtime}), mock upstream ${mockUrl}`,
);
const t0 = performance.now();
// A gateway that dies (out of memory under --heap-mb) ends the run: what follows would only count refusals.
let gatewayExit: { at_minute: number; code: number | null; signal: string | null } | undefined;
let runEnded = false;
gateway.child.once('exit', (code, signal) => {
  if (runEnded) return;
  gatewayExit = { at_minute: round((performance.now() - t0) / 60_000, 2)!, code, signal };
  console.error(`gateway exited (${code ?? signal}) at minute ${gatewayExit.at_minute}: the run stops`);
});
let metricsFailures = 0;
const rssTimer = setInterval(() => {
  const at = performance.now() - t0;
  const rss = rssMb(pid);
  if (rss === undefined) return;
  rssSamples.push([at / 60_000, rss]);
  minuteOf(Math.min(at, DURATION_MS - 1)).rss.push(rss);
  scrapeMetrics(gateway.urls.gateway, dispatcher).then(
    (sample) => minuteOf(Math.min(at, DURATION_MS - 1)).metrics.push(sample),
    (error: Error) => {
      metricsFailures++;
      console.error(`metrics scrape failed: ${error.message}`);
    },
  );
}, RSS_EVERY_MS);
const initialRss = rssMb(pid);

const pending = new Set<Promise<void>>();
let n = 0;
let printed = 0;
while (performance.now() - t0 < DURATION_MS && !gatewayExit) {
  const due = Math.floor(((performance.now() - t0) / 1000) * RATE);
  while (n < due) {
    let pick = (((n * 0.6180339887) % 1) + 1) % 1;
    let kind: Kind = 'chat';
    for (const [k, weight] of MIX) {
      if (pick < weight) {
        kind = k;
        break;
      }
      pick -= weight;
    }
    const scheduledAt = t0 + (n / RATE) * 1000;
    n++;
    if (inFlight >= MAX_IN_FLIGHT) {
      minuteOf(scheduledAt - t0).skipped++;
      continue;
    }
    inFlight++;
    const p = fire(kind, n, scheduledAt).finally(() => {
      inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  }
  const elapsedMinutes = Math.floor((performance.now() - t0) / 60_000);
  while (printed < elapsedMinutes) printMinute(minutes[printed], printed++);
  await delay(5);
}
await Promise.allSettled([...pending]);
runEnded = true;
clearInterval(rssTimer);
while (printed < minutes.length) printMinute(minutes[printed], printed++);

const perMinute = minutes.map((m, i) => summarizeMinute(m, i)).filter((s) => s !== undefined);
const afterWarmup = rssSamples.filter(([minute]) => minute >= 1);
const afterMinute2 = rssSamples.filter(([minute]) => minute >= 2);
const result = {
  started_at: new Date(Date.now() - (performance.now() - t0)).toISOString(),
  minutes: MINUTES,
  rate_per_s: RATE,
  mix: Object.fromEntries(MIX),
  gateway_runtime: gateway.runtime,
  store: 'sqlite',
  heap_cap_mb: HEAP_MB ?? null,
  node: process.version,
  metrics_scrape_failures: metricsFailures,
  gateway_exit: gatewayExit ?? null,
  rss_mb_initial: round(initialRss),
  rss_mb_minute_1: perMinute[0]?.rss_mb ?? null,
  rss_mb_last_minute: perMinute.at(-1)?.rss_mb ?? null,
  rss_slope_mb_per_min_after_minute_1: round(slope(afterWarmup), 3),
  rss_slope_mb_per_min_after_minute_2: round(slope(afterMinute2), 3),
  rss_slope_mb_per_min_all: round(slope(rssSamples), 3),
  rss_samples: rssSamples.map(([minute, mb]) => [round(minute, 3), round(mb)]),
  totals: {
    requests: perMinute.reduce((s, m) => s + m.requests, 0),
    ok: perMinute.reduce((s, m) => s + m.ok, 0),
    errors: perMinute.reduce((s, m) => s + m.error_count, 0),
    skipped: perMinute.reduce((s, m) => s + m.skipped, 0),
  },
  per_minute: perMinute,
};
console.log(
  `RSS: ${result.rss_mb_initial} MB at start, ${result.rss_mb_minute_1} MB at minute 1, ${result.rss_mb_last_minute} MB at minute ${perMinute.length}; ` +
    `slope after minute 1: ${result.rss_slope_mb_per_min_after_minute_1} MB/min, after minute 2: ${result.rss_slope_mb_per_min_after_minute_2} MB/min (all samples: ${result.rss_slope_mb_per_min_all} MB/min)`,
);
console.log(
  `totals: ${result.totals.requests} requests, ${result.totals.ok} ok, ${result.totals.errors} errors, ${result.totals.skipped} skipped`,
);

const resultsDir = join(REPO, 'bench', '.results');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
console.log(`written: ${file}`);

await dispatcher.close();
await gateway.stop();
killAll();
process.exit(0);
