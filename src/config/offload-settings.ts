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
   * Conversation-aware compression (chat, Messages and Responses paths; /v1/compress with a
   * model) of bodies with at least this much text runs on a pool thread
   * (`GATEWAY_OFFLOAD_COMPRESS_MIN_CHARS`). Higher than `minChars`: every agent request is
   * compressed, and inline the engine takes 2–4 ms per 100k tokens while a thread costs two
   * structured clones, a queue, and the thread's own first-sight memo (docs/decisions.md).
   */
  compressMinChars: number;
  /**
   * Nice steps the threads run below the process (Linux; `GATEWAY_OFFLOAD_NICE`, 0 = same
   * priority): the event loop gets a core before them when both want one.
   */
  nice: number;
}

/**
 * Threads by default, at most 4: one a core when they run below the event loop's priority
 * (Linux, `nice` > 0), else one core fewer, at least 1. At the same priority, as many busy
 * threads as cores took the cores from the main thread and every other client waited; niced,
 * they give it back whenever it wants one (docs/decisions.md, "Big inputs off the event loop").
 */
export function defaultOffloadThreads(nice: number, platform: NodeJS.Platform = process.platform): number {
  const cores = availableParallelism();
  return Math.max(1, Math.min(4, platform === 'linux' && nice > 0 ? cores : cores - 1));
}

const NICE = 10;

export const OFFLOAD_DEFAULTS: OffloadSettings = {
  threads: defaultOffloadThreads(NICE),
  maxQueue: 64,
  minChars: 64 * 1024,
  // ~1M characters is ~250k tokens: at most ~10–20 ms of the event loop inline.
  compressMinChars: 1024 * 1024,
  nice: NICE,
};
