/**
 * How long the collector's retention holds the event loop (SQLite, whose driver is synchronous):
 *
 *   node --import tsx bench/collector/retention.ts [--events 100000] [--batch 500]
 *
 * Stores `--events` expired events (with one outbox row and one warehouse copy each) twice, in
 * two fresh stores, then deletes them: once the naive way, one DELETE per table in one
 * transaction (the baseline), once with the RetentionSweeper in batches of `--batch` rows. For
 * each: total time and the longest event-loop stall (perf_hooks.monitorEventLoopDelay), and the
 * ratio of the sweeper's stall to the baseline's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/database.js';
import { CollectedEventStore, timeOrderedId } from '../../src/store/collected-events.js';
import { CollectedEventRetention } from '../../src/store/collected-events-retention.js';
import { RetentionSweeper } from '../../src/collector/retention-sweeper.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '100000' }, batch: { type: 'string', default: '500' } },
});
const EVENTS = Number(values.events);
const BATCH = Number(values.batch);
const DAY_MS = 86_400_000;

async function fill(): Promise<{ store: Store; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-retention-'));
  const store = await openStore({ dataDir: dir });
  const events = new CollectedEventStore(store);
  const projectId = randomUUID();
  const componentId = randomUUID();
  const old = Date.now() - 40 * DAY_MS;
  for (let done = 0; done < EVENTS; done += 5_000) {
    const receivedAt = old + done;
    const batch = Array.from({ length: Math.min(5_000, EVENTS - done) }, () => {
      const id = `evt_${timeOrderedId(receivedAt)}`;
      const payload = JSON.stringify({
        id,
        type: 'page',
        timestamp: new Date(receivedAt).toISOString(),
        data: { title: 'Home', path: '/', url: 'https://example.test/' },
        context: { client: { timezone: 'Europe/Paris', screen_width: 1440 } },
      });
      return { id, idFromClient: false, type: 'page' as const, payload, bytes: Buffer.byteLength(payload) };
    });
    await events.insert([
      {
        projectId,
        organizationId: 'org',
        receivedAt,
        events: batch,
        componentIds: { page: [componentId], track: [], user: [] },
      },
    ]);
    await events.copyToWarehouse(
      projectId,
      componentId,
      batch.map((e) => e.id),
      receivedAt,
    );
  }
  return { store, dir };
}

async function measure(name: string, run: (store: Store) => Promise<unknown>) {
  const { store, dir } = await fill();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
  histogram.enable();
  await tick();
  const started = performance.now();
  await run(store);
  const ms = performance.now() - started;
  // A stall is recorded when the sampling timer finally runs: let it run once after the work.
  await tick();
  histogram.disable();
  const left = await store.db
    .selectFrom('collected_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    method: name,
    total_ms: Math.round(ms),
    longest_stall_ms: Number((histogram.max / 1e6).toFixed(1)),
    p99_loop_delay_ms: Number((histogram.percentile(99) / 1e6).toFixed(1)),
    events_left: Number(left.n),
  };
}

const cutoff = () => Date.now() - 30 * DAY_MS;
const loadBefore = loadavg()[0]!;
const naive = await measure('one DELETE per table, one transaction', (store) =>
  store.db.transaction().execute(async (trx) => {
    const at = cutoff();
    await sql`delete from event_deliveries where created_at < ${at}`.execute(trx);
    await sql`delete from collected_events where received_at < ${at}`.execute(trx);
    await sql`delete from warehouse_events where received_at < ${at}`.execute(trx);
  }),
);
const sweeper = await measure(`RetentionSweeper, ${BATCH} rows per transaction`, (store) =>
  new RetentionSweeper(
    new CollectedEventRetention(store),
    { retentionDays: 30, sweepMs: 60_000, batch: BATCH },
    pino({ level: 'silent' }),
  ).sweep(),
);
console.log(
  JSON.stringify(
    {
      benchmark: 'collector-retention',
      store: 'sqlite',
      expired_events: EVENTS,
      rows_deleted: EVENTS * 3,
      results: [naive, sweeper],
      longest_stall_ratio: Number((sweeper.longest_stall_ms / Math.max(0.1, naive.longest_stall_ms)).toFixed(3)),
      load_average_1m: { before: Number(loadBefore.toFixed(2)), after: Number(loadavg()[0]!.toFixed(2)) },
    },
    null,
    2,
  ),
);
