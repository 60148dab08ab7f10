import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Linux's lowest priority: nice values run from -20 (first) to 19 (last). */
const LOWEST = 19;

/**
 * Lowers the CPU priority of the calling thread alone by `increment` nice steps (capped at 19),
 * and returns the nice value it now has; undefined where that cannot be done (not Linux, no
 * /proc, refused), and the thread goes on at its priority.
 *
 * Why: the pool's threads (pool.ts) and the event loop share the machine's cores. With every core
 * busy counting big inputs, the event loop waited for a core behind them and every other client
 * of the process with it (docs/decisions.md, "Big inputs off the event loop"). A nicer thread
 * still gets every idle cycle, but the scheduler gives the main thread the core when it wants it.
 *
 * Linux keeps a nice value per thread: `setpriority(PRIO_PROCESS, tid)` changes that thread
 * only, and `/proc/thread-self` names the calling thread (`<pid>/task/<tid>`). Relative to what
 * the thread inherited, so a service started under `nice` keeps its pool below its event loop.
 */
export function lowerThreadPriority(increment: number): number | undefined {
  if (process.platform !== 'linux' || increment <= 0) return undefined;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return undefined;
    const nice = Math.min(LOWEST, getPriority(tid) + increment);
    setPriority(tid, nice);
    return nice;
  } catch {
    return undefined;
  }
}
