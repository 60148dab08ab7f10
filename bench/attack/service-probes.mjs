// What the attack bench reads from the gateway it attacks: its database, its metrics, and the
// collector project the normal client and the flood post events to.
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fetchText } from '../overhead/lib/requests.mjs';

export const COLLECTOR_HOST = 'attack.bench.test';

/**
 * Events and event bytes stored per project (`collected_event_totals`, what the quota is checked
 * against), read from the gateway's SQLite file while it runs (WAL: readers do not block it).
 */
export function storedEvents(dataDir) {
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
export function configuredQuota(gatewayEnv) {
  const setting = (name, fallback) => (gatewayEnv[name] !== undefined ? Number(gatewayEnv[name]) : fallback);
  return {
    events: setting('GATEWAY_COLLECTOR_QUOTA_EVENTS', 1_000_000),
    bytes: setting('GATEWAY_COLLECTOR_QUOTA_BYTES', 1024 ** 3),
  };
}

export function databaseBytes(dataDir) {
  let bytes = 0;
  for (const name of readdirSync(dataDir)) {
    if (name.startsWith('gateway.sqlite')) bytes += statSync(join(dataDir, name)).size;
  }
  return bytes;
}

export async function scrapeMetrics(service) {
  const res = await fetchText(`${service.urls.gateway}/metrics`).catch(() => undefined);
  return res?.status === 200 ? res.text : '';
}

export function connectionMetrics(text) {
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
export function eventLoopLag(text) {
  const value = (name) => {
    const m = new RegExp(`^nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) * 1000 : NaN;
  };
  return { p50: value('p50'), p99: value('p99'), max: value('max') };
}

export async function setUpCollector(service) {
  const { org, urls } = service;
  const res = await fetchText(`${urls.console}/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.console_token}` },
    body: JSON.stringify({ slug: 'attack', name: 'Attack bench', domains: [COLLECTOR_HOST] }),
  });
  if (res.status !== 201)
    throw new Error(`creating the collector project: HTTP ${res.status} ${res.text.slice(0, 300)}`);
}
