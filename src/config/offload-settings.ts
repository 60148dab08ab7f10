import { availableParallelism } from 'node:os';

/** Settings of the worker pool for big inputs (src/offload/); read in route-limits.ts. */
export interface OffloadSettings {
  /** Threads at most (`GATEWAY_OFFLOAD_THREADS`). */
  threads: number;
  /** Tasks waiting for a thread at most; beyond, `OffloadQueueFull` (`GATEWAY_OFFLOAD_MAX_QUEUE`). */
  maxQueue: number;
  /** Inputs with fewer characters of text than this run inline (`GATEWAY_OFFLOAD_MIN_CHARS`). */
  minChars: number;
  /**
   * Nice steps the threads run below the process (Linux; `GATEWAY_OFFLOAD_NICE`, 0 = same
   * priority): the event loop gets a core before them when both want one.
   */
  nice: number;
}

export const OFFLOAD_DEFAULTS: OffloadSettings = {
  // One core left to the event loop: with as many busy threads as cores, the threads took the
  // cores from the main thread, and every other client waited (docs/decisions.md).
  threads: Math.max(1, Math.min(4, availableParallelism() - 1)),
  maxQueue: 64,
  minChars: 64 * 1024,
  nice: 10,
};
