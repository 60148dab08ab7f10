import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import {
  closeOffloadPool,
  configureOffload,
  countTextTokensOffloaded,
  OFFLOAD_DEFAULTS,
} from '../../src/offload/index.js';
import { lowerThreadPriority } from '../../src/offload/thread-priority.js';

/**
 * The pool's threads run below the event loop for the CPU (src/offload/thread-priority.ts), so
 * that big inputs being counted do not keep the main thread waiting for a core. Linux keeps a
 * nice value per thread; /proc/<pid>/task/<tid>/stat shows it (field 19).
 */
const linux = process.platform === 'linux';

/** Nice value of each thread of this process, by thread id. */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      // Fields after the command (which may hold spaces): state is field 3, nice field 19.
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      nices.set(Number(tid), Number(fields[19 - 3]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return nices;
}

describe('offload thread priority', { skip: !linux && 'per-thread nice values are Linux-only' }, () => {
  after(async () => {
    await closeOffloadPool();
    configureOffload(OFFLOAD_DEFAULTS);
  });

  it('runs the pool threads the configured nice steps below the main thread, which keeps its own', async () => {
    const mainNice = threadNices().get(process.pid)!;
    const wanted = Math.min(19, mainNice + 7);
    const before = [...threadNices().values()].filter((nice) => nice === wanted).length;
    configureOffload({ threads: 2, minChars: 1, nice: 7 });
    // Two at once: both threads start.
    const counts = await Promise.all([
      countTextTokensOffloaded('x'.repeat(100), 'o200k_base'),
      countTextTokensOffloaded('y'.repeat(100), 'o200k_base'),
    ]);
    assert.ok(counts.every((n) => n > 0));
    const after = threadNices();
    assert.equal(after.get(process.pid), mainNice, 'the main thread keeps its priority');
    const lowered = [...after.values()].filter((nice) => nice === wanted).length - before;
    assert.ok(
      lowered >= 1 && lowered <= 2,
      `pool threads at nice ${wanted}: ${lowered}, threads ${JSON.stringify([...after])}`,
    );
  });

  it('lowers only the calling thread, relative to its own nice value, never above 19', () => {
    // The main thread of this test process is lowered for good, so this runs last.
    const start = threadNices().get(process.pid)!;
    assert.equal(lowerThreadPriority(0), undefined, '0 leaves the thread alone');
    assert.equal(lowerThreadPriority(3), Math.min(19, start + 3));
    assert.equal(threadNices().get(process.pid), Math.min(19, start + 3));
    assert.equal(lowerThreadPriority(40), 19);
    assert.equal(threadNices().get(process.pid), 19);
  });
});
