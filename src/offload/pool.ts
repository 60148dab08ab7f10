import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type { OffloadAnswer, OffloadTask, OffloadWorkerData } from './tasks.js';
import { OFFLOAD_DEFAULTS, type OffloadSettings } from '../config/offload-settings.js';

export { OFFLOAD_DEFAULTS, type OffloadSettings };

/**
 * The worker threads that take CPU-heavy work on big inputs (tokenizing, compressing) off the
 * event loop, so that one such request cannot stall every other connection of the process
 * (issue 16: 64 KB of one letter froze all three listeners for seconds). A piscina pool,
 * created on first use: a process that never sees a big input starts no thread.
 */
/** The pool's queue is full: the caller answers 503 rather than wait without bound. */
export class OffloadQueueFull extends Error {
  constructor() {
    super('The worker pool for large inputs is busy; retry shortly.');
    this.name = 'OffloadQueueFull';
  }
}

let settings: OffloadSettings = OFFLOAD_DEFAULTS;
let pool: Piscina<OffloadTask, OffloadAnswer<OffloadTask['kind']>> | undefined;

/** Replaces the settings (at start-up, before the first task; tests too). */
export function configureOffload(next: Partial<OffloadSettings>): void {
  settings = { ...settings, ...next };
}

export function offloadSettings(): OffloadSettings {
  return settings;
}

/**
 * The worker's file next to this one: `worker.js` in dist/, `worker.ts` when the sources run
 * through tsx (tests, benchmarks), whose loader the threads inherit with the process's flags.
 */
function workerFile(): string {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return fileURLToPath(new URL(`./worker.${extension}`, import.meta.url));
}

function thePool(): Piscina<OffloadTask, OffloadAnswer<OffloadTask['kind']>> {
  if (!pool) {
    // piscina itself is loaded with the pool: a process that never sees a big input does without.
    const { Piscina: Pool } = createRequire(import.meta.url)('piscina') as typeof import('piscina');
    pool = new Pool({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: settings.threads,
      maxQueue: settings.maxQueue,
      // A thread keeps its code, merge ranks and caches while requests keep coming.
      idleTimeout: 5 * 60 * 1000,
      // Read by worker.ts as the thread starts (thread-priority.ts).
      workerData: { nice: settings.nice } satisfies OffloadWorkerData,
    });
  }
  return pool;
}

/**
 * Starts a thread ahead of a task that is on its way (a big body arriving): its start and the
 * loading of its code (~50–100 ms of CPU) then overlap the upload instead of adding to the answer.
 * Nothing when the pool already has a thread, running or starting.
 */
export function warmOffloadPool(): void {
  const current = thePool();
  if (current.threads.length > 0) return;
  current.run({ kind: 'warm' }).catch(() => {
    // A thread that cannot start fails the task that needs it, with its own error.
  });
}

/** Runs `task` on a pool thread; rejects with OffloadQueueFull when the queue is full. */
export async function runOffloaded<K extends OffloadTask['kind']>(
  task: Extract<OffloadTask, { kind: K }>,
  transferList?: ArrayBuffer[],
): Promise<OffloadAnswer<K>> {
  const current = thePool();
  if (current.queueSize >= settings.maxQueue) throw new OffloadQueueFull();
  try {
    return (await current.run(task, transferList ? { transferList } : {})) as OffloadAnswer<K>;
  } catch (error) {
    if (error instanceof Error && error.message === 'Task queue is at limit') throw new OffloadQueueFull();
    throw error;
  }
}

/** Threads the pool has, running or starting (0 before its first task). */
export function offloadThreads(): number {
  return pool?.threads.length ?? 0;
}

/** Stops the threads (server shutdown, end of a test file). */
export async function closeOffloadPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}
