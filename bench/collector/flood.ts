/**
 * A flood of POST /_gateway/event against the collector's limits (issue 16, row 3):
 *
 *   node --import tsx bench/collector/flood.ts [--seconds 10] [--events-per-request 10] [--connections 16] [--addresses 8]
 *
 * Three phases, each on a fresh gateway (`gateway serve` from a temporary build) and a fresh
 * SQLite store, each flooding one project for `--seconds`:
 *   1. baseline: rate limits and quota off, one client address: what the flood gets through today;
 *   2. defaults, one client address: what one address pushes before and after its 429s;
 *   3. defaults, `--addresses` source addresses (127.0.0.2, …): the project's budget.
 * Reported per phase: accepted events and events/s, 429 answers, other answers, and the database
 * growth (gateway.sqlite plus its WAL, after a SIGTERM). Ratios are against phase 1, measured in
 * the same run on the same machine.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compileGateway } from '../support/spawn-gateway.js';
import { collectorPool, eventRequest, postEvent, startCollectorGateway } from './lib/collector-gateway.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    'events-per-request': { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    addresses: { type: 'string', default: '8' },
  },
});
const SECONDS = Number(values.seconds);
const PER_REQUEST = Number(values['events-per-request']);
const CONNECTIONS = Number(values.connections);
const ADDRESSES = Number(values.addresses);

const LIMITS_OFF = {
  GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
  GATEWAY_COLLECTOR_ADDRESS_BURST: '0',
  GATEWAY_COLLECTOR_PROJECT_RATE: '0',
  GATEWAY_COLLECTOR_PROJECT_BURST: '0',
  GATEWAY_COLLECTOR_QUOTA_EVENTS: '0',
  GATEWAY_COLLECTOR_QUOTA_BYTES: '0',
};

const body = JSON.stringify({
  data_collection: {
    context: {
      client: { timezone: 'Europe/Paris', screen_width: 1440 },
      page: { url: 'https://flood.example.test/' },
    },
    events: Array.from({ length: PER_REQUEST }, (_, i) => ({
      type: i % 2 === 0 ? 'page' : 'track',
      data: i % 2 === 0 ? { path: '/' } : { name: 'click', properties: { i } },
    })),
  },
});

function databaseBytes(dataDir: string): number {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += statSync(join(dataDir, `gateway.sqlite${suffix}`)).size;
    } catch {
      // no WAL file after a clean checkpoint
    }
  }
  return total;
}

interface PhaseResult {
  phase: string;
  accepted_events: number;
  accepted_events_per_second: number;
  answers_429: number;
  other_answers: number;
  database_bytes_before: number;
  database_bytes_after: number;
  database_growth_bytes: number;
}

const build = compileGateway();

async function phase(name: string, env: Record<string, string>, addresses: string[]): Promise<PhaseResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-flood-'));
  const domain = 'flood.example.test';
  const { gateway, ca } = await startCollectorGateway({
    dataDir,
    // flood.example.test is a test name: served without an ownership check in development mode only.
    env: { GATEWAY_ENV: 'development', ...env },
    entry: build?.entry,
    project: { slug: 'flood', name: 'Flood', domain },
    components: [{ component_slug: 'gateway/warehouse' }],
  });
  const sizeBefore = databaseBytes(dataDir);

  const pools = addresses.map((localAddress) =>
    collectorPool(gateway.urls.collector, ca, {
      connections: Math.max(1, Math.ceil(CONNECTIONS / addresses.length)),
      localAddress,
    }),
  );
  const event = eventRequest(domain, body);
  let accepted = 0;
  let refused = 0;
  let other = 0;
  const started = Date.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const pool = pools[i % pools.length]!;
      while (Date.now() < until) {
        try {
          const status = await postEvent(pool, event);
          if (status === 202) accepted += PER_REQUEST;
          else if (status === 429) refused++;
          else other++;
        } catch {
          other++;
        }
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  await Promise.all(pools.map((pool) => pool.close()));
  await gateway.stop();
  const sizeAfter = databaseBytes(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  return {
    phase: name,
    accepted_events: accepted,
    accepted_events_per_second: Math.round(accepted / elapsed),
    answers_429: refused,
    other_answers: other,
    database_bytes_before: sizeBefore,
    database_bytes_after: sizeAfter,
    database_growth_bytes: sizeAfter - sizeBefore,
  };
}

const loadBefore = loadavg()[0]!;
const baseline = await phase('baseline: no limits, one address', LIMITS_OFF, ['127.0.0.1']);
const oneAddress = await phase('defaults, one address', {}, ['127.0.0.1']);
const manyAddresses = await phase(
  `defaults, ${ADDRESSES} addresses`,
  {},
  Array.from({ length: ADDRESSES }, (_, i) => `127.0.0.${i + 2}`),
);
build?.cleanup();

const ratio = (x: PhaseResult) => ({
  accepted_vs_baseline: Number((x.accepted_events / Math.max(1, baseline.accepted_events)).toFixed(4)),
  growth_vs_baseline: Number((x.database_growth_bytes / Math.max(1, baseline.database_growth_bytes)).toFixed(4)),
});
console.log(
  JSON.stringify(
    {
      benchmark: 'collector-flood',
      store: 'sqlite',
      seconds: SECONDS,
      events_per_request: PER_REQUEST,
      connections: CONNECTIONS,
      phases: [baseline, { ...oneAddress, ...ratio(oneAddress) }, { ...manyAddresses, ...ratio(manyAddresses) }],
      load_average_1m: { before: Number(loadBefore.toFixed(2)), after: Number(loadavg()[0]!.toFixed(2)) },
    },
    null,
    2,
  ),
);
