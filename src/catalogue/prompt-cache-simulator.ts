import { createHash } from 'node:crypto';
import type { CachePricing, CacheUsage } from './cache-pricing.js';

/**
 * One content block of a prompt (a tool definition, a system text block, a message's text,
 * tool call or tool result), in prompt order. `key` identifies the whole prefix that ends with
 * this block (see `chainKeys`): two requests share a cache entry at a position exactly when
 * their keys there are equal.
 */
export interface PromptBlock {
  key: string;
  tokens: number;
  /** A `cache_control` breakpoint ends at this block (Anthropic). */
  breakpoint?: boolean;
}

/**
 * How the simulator decides what a request reads:
 * - `rules`: the provider's own rules (`pricing.rules`): Anthropic reads only at breakpoints with
 *   the block lookback, OpenAI at any earlier prefix in `blockTokens` steps;
 * - `any-prefix`: the longest earlier prefix is read and everything else written, as if every
 *   block carried a breakpoint (an Anthropic client that caches perfectly; the upper bound).
 */
export type SimulationMode = 'rules' | 'any-prefix';

/** Keys for a list of block contents: each key hashes the previous key and the block. */
export function chainKeys(contents: readonly string[]): string[] {
  const keys: string[] = [];
  let previous = '';
  for (const content of contents) {
    previous = createHash('sha1').update(previous).update('\u0000').update(content).digest('base64');
    keys.push(previous);
  }
  return keys;
}

/**
 * A provider's prompt cache for one conversation (or one organisation: entries are keyed by
 * prefix, so unrelated prompts never meet). Feed it every request in time order; it returns
 * the usage the provider would report. Entries live `ttlMs` after their last write or read.
 */
export class PromptCacheSimulator {
  /** Prefix key → expiry time. */
  private readonly entries = new Map<string, number>();

  constructor(
    private readonly pricing: CachePricing,
    private readonly mode: SimulationMode = 'rules',
  ) {}

  request(blocks: readonly PromptBlock[], nowMs: number): CacheUsage {
    const prefix = new Array<number>(blocks.length);
    let total = 0;
    for (let i = 0; i < blocks.length; i++) prefix[i] = total += blocks[i]!.tokens;
    const rules = this.pricing.rules;
    if (rules.kind === 'none') return { uncached: total, cacheRead: 0, cacheWrite: 0 };
    if (rules.kind === 'breakpoints' && this.mode === 'rules') return this.breakpoints(blocks, prefix, total, nowMs);
    return this.anyPrefix(blocks, prefix, total, nowMs);
  }

  private alive(key: string, nowMs: number): boolean {
    const expires = this.entries.get(key);
    return expires !== undefined && expires > nowMs;
  }

  private cacheable(tokens: number): boolean {
    return tokens >= this.pricing.minCacheableTokens;
  }

  /** Longest earlier prefix (automatic caching, or Anthropic with a breakpoint on every block). */
  private anyPrefix(blocks: readonly PromptBlock[], prefix: number[], total: number, nowMs: number): CacheUsage {
    let hit = -1;
    for (let i = blocks.length - 1; i >= 0; i--) {
      if (this.alive(blocks[i]!.key, nowMs)) {
        hit = i;
        break;
      }
    }
    let read = hit >= 0 && this.cacheable(prefix[hit]!) ? prefix[hit]! : 0;
    const rules = this.pricing.rules;
    if (rules.kind === 'automatic' && read > 0) {
      const min = this.pricing.minCacheableTokens;
      read = min + Math.floor((read - min) / rules.blockTokens) * rules.blockTokens;
    }
    const expires = nowMs + this.pricing.ttlMs;
    for (let i = 0; i < blocks.length; i++) if (this.cacheable(prefix[i]!)) this.entries.set(blocks[i]!.key, expires);
    if (rules.kind === 'automatic') return { uncached: total - read, cacheRead: read, cacheWrite: 0 };
    const written = this.cacheable(total) ? total - read : 0;
    return { uncached: total - read - written, cacheRead: read, cacheWrite: written };
  }

  /** Anthropic: reads only at breakpoints, each looking back a bounded number of blocks. */
  private breakpoints(blocks: readonly PromptBlock[], prefix: number[], total: number, nowMs: number): CacheUsage {
    if (this.pricing.rules.kind !== 'breakpoints') throw new Error('breakpoint rules expected');
    const { lookbackBlocks, maxBreakpoints } = this.pricing.rules;
    const marks: number[] = [];
    for (let i = 0; i < blocks.length; i++) if (blocks[i]!.breakpoint) marks.push(i);
    if (marks.length > maxBreakpoints) {
      throw new Error(
        `A request may carry at most ${maxBreakpoints} cache_control breakpoints (${marks.length} given).`,
      );
    }
    let hit = -1;
    for (const mark of marks) {
      for (let j = mark; j >= Math.max(0, mark - lookbackBlocks); j--) {
        if (j <= hit) break;
        if (this.alive(blocks[j]!.key, nowMs)) {
          hit = j;
          break;
        }
      }
    }
    const read = hit >= 0 ? prefix[hit]! : 0;
    let lastWritten = -1;
    for (const mark of marks) if (this.cacheable(prefix[mark]!)) lastWritten = mark;
    const written = lastWritten >= 0 ? Math.max(0, prefix[lastWritten]! - read) : 0;
    const expires = nowMs + this.pricing.ttlMs;
    if (hit >= 0) this.entries.set(blocks[hit]!.key, expires);
    for (const mark of marks) if (this.cacheable(prefix[mark]!)) this.entries.set(blocks[mark]!.key, expires);
    return { uncached: total - read - written, cacheRead: read, cacheWrite: written };
  }
}
