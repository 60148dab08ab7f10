import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** WAL pages after which the request connection checkpoints itself again (SQLite's default). */
const INLINE_AUTOCHECKPOINT_PAGES = 1_000;

export interface CheckpointerOptions {
  /** A checkpoint that failed (anything but the RESTART giving up on a busy database). */
  onError?: (message: string) => void;
  /** How often the worker copies committed WAL pages into the database file. */
  intervalMs?: number;
  /** WAL size (pages) past which the worker also restarts the WAL, pausing writers once. */
  restartPages?: number;
}

export interface SqliteCheckpointer {
  readonly thread: Worker;
  stop(): Promise<void>;
}

// CommonJS run by the worker thread (eval'd: no file of its own to find next to the compiled
// or the TypeScript sources). It has its own connection to the same file.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
// RESTART holds off new writers while it waits for the current writer and for readers of old
// WAL frames; it gives up after this (and is retried after the back-off below), so a reader that
// lingers (another process) can never hold the gateway's writes for longer.
db.pragma('busy_timeout = 100');
db.pragma('cache_size = -256');
// A RESTART that could not finish (busy) is tried again only after a back-off, doubling up to
// 5 s: retried every tick, it would keep the writer lock taken most of the time and starve the
// gateway's own writes for as long as the reader stays.
let restartNotBefore = 0;
let restartBackoffMs = 1000;
const tick = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ walPages: passive.log });
    if (passive.log < workerData.restartPages || Date.now() < restartNotBefore) return;
    const [restart] = db.pragma('wal_checkpoint(RESTART)');
    if (restart.busy) {
      restartNotBefore = Date.now() + restartBackoffMs;
      restartBackoffMs = Math.min(restartBackoffMs * 2, 5000);
    } else {
      restartBackoffMs = 1000;
    }
  } catch (error) {
    if (error && error.code === 'SQLITE_BUSY') return;
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Moves SQLite's WAL checkpoints off the event loop. A checkpoint copies committed pages into the
 * database file and fsyncs it; done automatically by the committing connection, that stalled
 * the event loop ~5 ms (up to ~15) on every 1,000th WAL page, i.e. every few hundred requests
 * (bench/README.md, overhead). Here a worker thread with its own connection checkpoints
 * passively (writers never wait) every `intervalMs`, and restarts the WAL once it holds
 * `restartPages` pages: that step waits for the current write and makes the next one wait for
 * one fsync, the only pause left, so the WAL file stays bounded. The request connection stops
 * checkpointing itself while the worker runs, and takes it up again if the worker dies or while
 * the WAL holds more than four times `restartPages` (RESTARTs that keep finding the database
 * busy, under heavy writes or behind a lingering reader): SQLite's own bound, never an
 * unbounded WAL.
 */
export function startSqliteCheckpointer(
  database: SQLite.Database,
  file: string,
  options: CheckpointerOptions = {},
): SqliteCheckpointer {
  database.pragma('wal_autocheckpoint = 0');
  const restartPages = options.restartPages ?? 8_000;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      intervalMs: options.intervalMs ?? 100,
      restartPages,
    },
    // A small heap: the worker only calls into SQLite.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
  });
  let stopping = false;
  let inline = false;
  const setInline = (on: boolean) => {
    if (!database.open || on === inline) return;
    database.pragma(`wal_autocheckpoint = ${on ? INLINE_AUTOCHECKPOINT_PAGES : 0}`);
    inline = on;
  };
  const fallBackInline = () => setInline(true);
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping) fallBackInline();
      resolve();
    }),
  );
  worker.on('error', (error) => {
    options.onError?.(error.message);
    fallBackInline();
  });
  worker.on('message', (message: { error?: string; walPages?: number }) => {
    if (message.error) options.onError?.(message.error);
    if (message.walPages === undefined || stopping) return;
    if (message.walPages >= 4 * restartPages) setInline(true);
    else if (message.walPages < restartPages) setInline(false);
  });
  worker.unref();
  return {
    thread: worker,
    async stop() {
      if (stopping) return;
      stopping = true;
      worker.ref(); // unreferenced, its exit would not keep the process alive long enough to be seen
      worker.postMessage('stop');
      await exited;
      fallBackInline();
    },
  };
}

/** Rows changed on the connection after which the checkpoint thread is started. */
const START_AFTER_CHANGES = 200;
/** How often the connection's change count is read until then. */
const START_POLL_MS = 1_000;

/**
 * `startSqliteCheckpointer` once the connection has changed `startAfterChanges` rows: an idle
 * instance, or one that writes little, runs no worker thread (its isolate is ~8 MB resident).
 * Until then the connection checkpoints inline as SQLite does by default, every 1,000 WAL pages,
 * which the writes before the start (a few hundred rows, one count read a second) do not reach
 * unless they come in a burst; such a first checkpoint stalls the event loop once for a few ms.
 */
export function startSqliteCheckpointerOnWrites(
  database: SQLite.Database,
  file: string,
  options: CheckpointerOptions & { startAfterChanges?: number; pollMs?: number } = {},
): { stop(): Promise<void> } {
  const changes = database.prepare('select total_changes() as n').pluck();
  const startAt = (changes.get() as number) + (options.startAfterChanges ?? START_AFTER_CHANGES);
  let running: SqliteCheckpointer | undefined;
  const poll = setInterval(() => {
    if (!database.open || (changes.get() as number) < startAt) return;
    clearInterval(poll);
    running = startSqliteCheckpointer(database, file, options);
  }, options.pollMs ?? START_POLL_MS).unref();
  return {
    async stop() {
      clearInterval(poll);
      await running?.stop();
    },
  };
}
