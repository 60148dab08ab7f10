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
}

export const OFFLOAD_DEFAULTS: OffloadSettings = {
  // One core left to the event loop: with as many busy threads as cores, the threads took the
  // cores from the main thread, and every other client waited (docs/decisions.md).
  threads: Math.max(1, Math.min(4, availableParallelism() - 1)),
  maxQueue: 64,
  minChars: 64 * 1024,
  // ~1M characters is ~250k tokens: at most ~10–20 ms of the event loop inline.
  compressMinChars: 1024 * 1024,
};
