import { getHeapStatistics } from 'node:v8';

/**
 * Bytes a process-wide cache may hold: `fraction` of the heap V8 may grow to, and never more than
 * `atMost`. With the default heap (sized from the host's memory) a cache keeps its fixed bound;
 * an operator's `--max-old-space-size` (docs/scale-out.md, "Memory") shrinks it with the heap, so
 * caches that fill under steady traffic cannot together outgrow a capped heap (bench/README.md,
 * "soak": one sized in characters alone ran a 128 MB heap out of memory).
 */
export function heapShare(fraction: number, atMost: number): number {
  return Math.min(atMost, Math.floor(getHeapStatistics().heap_size_limit * fraction));
}
