/**
 * Usage export at scale: one million usage rows streamed as CSV through the real HTTPS console.
 *
 *   node --import tsx bench/export/run.ts [--rows 1000000] [--format csv|json]
 *
 * Seeds a temporary SQLite store (migrated by the gateway's own code, rows written with one
 * prepared statement), starts `gateway serve` on it as a child process, downloads
 * GET /v1/organizations/{orgId}/logs/export, counts the rows, and reports the gateway process's
 * peak resident memory (VmHWM from /proc, which covers the whole run) and rows per second.
 * Target: peak RSS under 150 MB for 1M rows. The download client runs on the same machine.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { Agent, request } from 'undici';
import { compileGateway, spawnGateway } from '../support/spawn-gateway.js';
import { seedOrganization } from '../support/seed-organization.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' }, format: { type: 'string', default: 'csv' } },
});
const ROWS = Number(values.rows);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-export-'));

// 1. Seed.
const seedStarted = Date.now();
const { organizationId, token } = await seedOrganization(dataDir, 'bench', 'Bench');
const db = new SQLite(join(dataDir, 'gateway.sqlite'));
db.pragma('journal_mode = WAL');
const now = Date.now();
const keyIds = Array.from({ length: 20 }, () => randomUUID());
const insertKey = db.prepare(
  `insert into api_keys (id, organization_id, name, type, coding_assistant, models, max_usage_usd, active, debug_mode, compression, email, key_digest, key_ciphertext, created_at, updated_at, expires_at, last_used_at, deleted_at)
   values (?, ?, ?, 'api', null, '[]', null, 1, 0, 0, null, ?, null, ?, ?, null, null, ?)`,
);
keyIds.forEach((id, i) =>
  insertKey.run(id, organizationId, `key ${i}, "team ${i % 3}"`, randomUUID(), now, now, i % 5 === 0 ? now : null),
);
const insertRow = db.prepare(
  `insert into usage_records (id, request_id, created_at, organization_id, api_key_id, model, provider, upstream_model, endpoint, input_tokens, cached_input_tokens,
   cache_creation_input_tokens, output_tokens, reasoning_tokens, uncompressed_input_tokens, cost_micro_usd, tags, status_code, error_code, latency_ms, stream)
   values (?, ?, ?, ?, ?, ?, 'openai', 'gpt-4o-mini', 'chat.completions', ?, 0, 0, ?, 0, null, ?, ?, 200, null, 120, 0)`,
);
const tagSets = ['[]', '["prod"]', '["prod","team-a"]', '["batch job","eu"]'];
const seed = db.transaction((from: number, to: number) => {
  for (let i = from; i < to; i++) {
    insertRow.run(
      randomUUID(),
      `req_${i}`,
      now - 20 * 3_600_000 + Math.floor((i / ROWS) * 19 * 3_600_000),
      organizationId,
      keyIds[i % keyIds.length],
      'openai/gpt-4o-mini',
      500 + (i % 3000),
      20 + (i % 700),
      1234 + i * 7,
      tagSets[i % tagSets.length],
    );
  }
});
for (let i = 0; i < ROWS; i += 50_000) seed(i, Math.min(ROWS, i + 50_000));
db.close();
const seedSeconds = (Date.now() - seedStarted) / 1000;

// 2. Serve, from compiled JavaScript as bin/gateway does (tsx's loader alone costs ~60 MB).
const build = compileGateway();
const gateway = await spawnGateway(
  { GATEWAY_DATA_DIR: dataDir, GATEWAY_PORT: '0', CONSOLE_PORT: '0', COLLECTOR_PORT: '0' },
  build?.entry,
);
const { child, urls } = gateway;
const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
const dispatcher = new Agent({ connect: { ca }, bodyTimeout: 600_000 });
const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8');
const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status())![1]);
const rssBefore = kb('VmRSS');

// 3. Export.
const started = Date.now();
const response = await request(
  `${urls.console}/v1/organizations/${organizationId}/logs/export?period=2d&format=${values.format}`,
  {
    headers: { authorization: `Bearer ${token}` },
    dispatcher,
  },
);
let bytes = 0;
let newlines = 0;
let rssSamples = 0;
let rssMax = 0;
let anonMax = 0;
let fileMax = 0;
const anonBefore = kb('RssAnon');
const fileBefore = kb('RssFile');
const sampler = setInterval(() => {
  rssSamples++;
  rssMax = Math.max(rssMax, kb('VmRSS'));
  anonMax = Math.max(anonMax, kb('RssAnon'));
  fileMax = Math.max(fileMax, kb('RssFile'));
}, 100);
for await (const chunk of response.body) {
  bytes += (chunk as Buffer).length;
  for (const byte of chunk as Buffer) if (byte === 10) newlines++;
}
clearInterval(sampler);
const seconds = (Date.now() - started) / 1000;
const peak = kb('VmHWM');
await gateway.stop();
await dispatcher.close();
build?.cleanup();
rmSync(dataDir, { recursive: true, force: true });

// CSV: a header line, then one line per row (the seeded names and tags hold no newlines). JSON:
// `[`, then `\n` before each row and before the closing `]`, then a final `\n`.
const rows = values.format === 'csv' ? newlines - 1 : newlines - 2;
console.log(
  JSON.stringify(
    {
      benchmark: 'usage export',
      store: 'sqlite',
      format: values.format,
      status: response.statusCode,
      gateway_runtime: gateway.runtime,
      seeded_rows: ROWS,
      seed_seconds: seedSeconds,
      exported_rows: rows,
      megabytes: Number((bytes / 1e6).toFixed(1)),
      seconds: Number(seconds.toFixed(2)),
      rows_per_second: Math.round(rows / seconds),
      gateway_rss_mb_before: Math.round(rssBefore / 1024),
      gateway_rss_mb_max_sampled: Math.round(rssMax / 1024),
      gateway_peak_rss_mb: Math.round(peak / 1024),
      // Where the growth is: anonymous memory (V8 heaps, malloc, SQLite's page cache) or pages of
      // the node binary and libraries touched for the first time.
      gateway_anon_mb_before_and_max: [Math.round(anonBefore / 1024), Math.round(anonMax / 1024)],
      gateway_file_mb_before_and_max: [Math.round(fileBefore / 1024), Math.round(fileMax / 1024)],
      rss_samples: rssSamples,
      target_peak_rss_mb: 150,
    },
    null,
    2,
  ),
);
