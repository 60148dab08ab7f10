// When to rewrite history (mask the outputs of old turns). A rewrite changes what the provider
// has cached: everything after the change point is written again at the write price, while the
// saving is one cheap read per later request (shared/guides/prompt-caching-economics.md). So a
// request moves the boundary only when
// - the cache is already cold (the previous request is older than the provider's TTL, or the
//   upstream reported neither a cached read nor a cache write for it): the rewrite is free;
// - the prompt nears the model's context window: a rewrite is cheaper than a refused request;
// - more requests are expected to follow than the breakeven R* of this rewrite, and either the
//   extra cost it adds now is covered by what compression already saved in this conversation (so
//   even if the conversation ended right after, it would not cost more than uncompressed) and
//   its expected loss (that cost times the chance the conversation stops before R* more requests)
//   by half of it, or the key's record of finished conversations says nearly none that got this
//   far stopped before such a rewrite paid back.
import { relativePrices, rewriteBreakeven, type CachePricing } from '../catalogue/cache-pricing.js';
import type { ConversationState } from './conversation-state.js';
import type { ToolResult } from './types.js';

export type RewriteReason = 'cold_cache' | 'context_window' | 'breakeven';

export interface RewriteDecision {
  /** The boundary to apply: outputs of turns before it are masked. */
  maskBefore: number;
  /** Why the boundary moved; undefined when it did not. */
  reason: RewriteReason | undefined;
  /** Tokens after the cache anchor that the rewrite sends again (Q) and tokens it removes (S). */
  changedTokens: number;
  savedTokens: number;
  breakeven: number;
  expectedRemaining: number;
  /** The cache was cold: every prompt token of this request is paid at the write price. */
  cold: boolean;
  /** Extra cost of the rewrite now, in uncached-input-token units (0 when none or cold). */
  extraUnits: number;
}

/** A prompt this close to the context window is rewritten as far as allowed. */
const CONTEXT_HEADROOM = 0.8;
/**
 * Without history, the requests expected after a conversation's n-th: agent sessions are
 * heavy-tailed, and by the Lindy estimate one that has lasted n requests has about as many to
 * go. Discounted by half: a wrong guess costs money now, a missed rewrite only a saving.
 */
const LINDY = 0.5;
/** Finished conversations needed before their lengths replace the Lindy estimate. */
const MIN_HISTORY = 8;
/**
 * Share of the savings so far a rewrite's expected loss (its extra cost times the chance the
 * conversation stops before it paid back) may take: the estimates are within ±30 %.
 */
const RISK_SHARE = 0.5;
/**
 * How much dearer than uncompressed a conversation that stops right after a rewrite may end, as a
 * share of what it cost so far: half the 0.5 % no conversation may exceed (issue 28), the other
 * half left for the error of the estimates. Without it the first rewrite of a conversation whose
 * outputs first sight barely shortens never comes: its extra cost grows with the conversation
 * faster than the savings it must fit in, and whether it came at all hung on a few tokens.
 */
const STOP_TOLERANCE = 0.0025;

/**
 * A rewrite's loss if the conversation stops is certain and immediate, its gain accrues one read
 * per request: it must be expected to pay back twice over. Measured on the mini-swe-agent
 * sessions (docs/compression.md): at a margin of 1, the rewrites the risk budget allowed cost
 * more than they saved.
 */
const MARGIN = 2;

/**
 * Requests expected after the `n`-th of a conversation: the median of what the finished
 * conversations that got this far went on for (the same key's, as the store keeps them; the
 * median, not the mean, since a few very long sessions would make every rewrite look good);
 * for a key without such history, the discounted Lindy estimate.
 */
export function expectedRemaining(n: number, history: readonly number[] | undefined): number {
  if (!history || history.length < MIN_HISTORY) return n * LINDY;
  // A conversation of n requests got this far too: it stopped right after this one.
  const longer = history.filter((length) => length >= n).map((length) => length - n);
  // Fewer than MIN_HISTORY went this far: this conversation is longer than nearly all the key
  // has had, and the few that went on say little. Padded with zeros, the median stays low.
  while (longer.length < MIN_HISTORY) longer.push(0);
  longer.sort((a, b) => a - b);
  return longer[Math.floor(longer.length / 2)]!;
}

/**
 * Finished conversations of the key that got as far as this one needed before their record can
 * stand in for the risk budget, and the share of them that may have stopped before a rewrite
 * paid back. Measured on the mini-swe-agent sessions replayed in seven orders (cost.ts --order,
 * docs/compression.md): with 8 such conversations, a run of long ones early in the history
 * vouched for rewrites in short conversations that then cost up to 13 % more than uncompressed;
 * with 16, one order still left one conversation 1.6 % above; with 24, none cost more.
 */
const MIN_RECORD = 24;
const RECORD_SHARE = 0.05;

/**
 * Whether the key's finished conversations say a rewrite at the `n`-th request pays back: at
 * least MIN_RECORD of them got this far, and at most RECORD_SHARE of those stopped within
 * `breakeven` more requests.
 */
export function recordVouches(n: number, breakeven: number, history: readonly number[] | undefined): boolean {
  if (!history) return false;
  let longer = 0;
  let stoppedEarly = 0;
  for (const length of history) {
    if (length < n) continue;
    longer++;
    if (length - n < breakeven) stoppedEarly++;
  }
  return longer >= MIN_RECORD && stoppedEarly <= RECORD_SHARE * longer;
}

/**
 * The chance a conversation at its `n`-th request stops before `breakeven` more follow: from the
 * key's finished conversations that got this far when there are enough of them, else the Lindy
 * survival of a heavy-tailed length (one that lasted n requests reaches n + k with odds n / (n + k)).
 */
export function stopRisk(n: number, breakeven: number, history: readonly number[] | undefined): number {
  if (!Number.isFinite(breakeven)) return 1;
  let longer = 0;
  let stoppedEarly = 0;
  for (const length of history ?? []) {
    if (length < n) continue;
    longer++;
    if (length - n < breakeven) stoppedEarly++;
  }
  if (longer >= MIN_HISTORY) return stoppedEarly / longer;
  return breakeven / (n + breakeven);
}

export interface PolicyInput {
  pricing: CachePricing;
  state: ConversationState;
  now: number;
  /** The boundary in effect (from the state, capped to the latest turns) and the largest allowed now. */
  current: number;
  candidate: number;
  /** Per item of the request, its tokens after the first-sight transforms. */
  itemTokens: number[] | undefined;
  totalTokens: number;
  lastAssistantItem: number;
  /** Where the cache can be hit again after a rewrite: the item of the boundary breakpoint. */
  anchorItem: number;
  /** Tokens the rewrite to `candidate` would remove (masked outputs, net of references written out). */
  savedTokens: number;
  /** Index of the first item the rewrite changes. */
  firstChangedItem: number;
  /** The cache hits only at breakpoints (Anthropic), so a rewrite is re-read from the anchor. */
  breakpointRules: boolean;
  /** Requests expected after this one, when the caller knows better than the policy. */
  expectedRemaining?: number | undefined;
  /** Lengths (in requests) of finished conversations of the same key, newest first. */
  history?: readonly number[] | undefined;
  /**
   * What the conversation's earlier requests cost uncompressed, at least (uncached-input-token
   * units): the allowance STOP_TOLERANCE is a share of.
   */
  spentUnits?: number;
  /** Whether the extra cost must fit in what the conversation saved so far (default true). */
  riskBudget?: boolean;
}

export function isCold(pricing: CachePricing, state: ConversationState, now: number): boolean {
  if (pricing.rules.kind === 'none') return true;
  if (state.lastRequestAt !== null && now - state.lastRequestAt > pricing.ttlMs) return true;
  // The first request of a conversation fills the cache; from the second on, a request that
  // neither read nor wrote anything means nothing is cached.
  return state.requests >= 2 && state.lastCacheRead === 0 && (state.lastCacheWrite ?? 0) === 0;
}

export function decideRewrite(input: PolicyInput): RewriteDecision {
  const { pricing, state } = input;
  const cold = isCold(pricing, state, input.now);
  const none: RewriteDecision = {
    maskBefore: input.current,
    reason: undefined,
    changedTokens: 0,
    savedTokens: 0,
    breakeven: Number.POSITIVE_INFINITY,
    expectedRemaining: 0,
    cold,
    extraUnits: 0,
  };
  if (input.candidate <= input.current || input.savedTokens <= 0) return none;
  // Q: what was cached after the point the cache will be read up to again.
  // Under breakpoint rules the cache is read at the boundary breakpoint, or, when the rewrite
  // changes something before it, at the end of the system prompt: no other breakpoint is there.
  const from = !input.breakpointRules
    ? input.firstChangedItem
    : input.firstChangedItem <= input.anchorItem
      ? 0
      : input.anchorItem + 1;
  let changed = 0;
  const items = input.itemTokens;
  if (items) for (let i = Math.max(0, from); i < input.lastAssistantItem && i < items.length; i++) changed += items[i]!;
  else changed = input.totalTokens;
  const saved = input.savedTokens;
  const expected = input.expectedRemaining ?? expectedRemaining(state.requests + 1, input.history);
  const breakeven = rewriteBreakeven(pricing, changed, saved);
  const decision = (reason: RewriteReason | undefined, extraUnits: number): RewriteDecision => ({
    ...none,
    maskBefore: reason ? input.candidate : input.current,
    reason,
    changedTokens: changed,
    savedTokens: saved,
    breakeven,
    expectedRemaining: expected,
    extraUnits: reason ? extraUnits : 0,
  });
  if (cold) return decision('cold_cache', 0);
  const { read, write } = relativePrices(pricing);
  const extra = Math.max(0, (write - read) * Math.max(0, changed - saved) - read * saved);
  if (input.totalTokens > pricing.contextWindow * CONTEXT_HEADROOM) return decision('context_window', extra);
  if (expected <= breakeven * MARGIN) return decision(undefined, 0);
  // The extra cost is lost only if the conversation stops before the rewrite paid back: what it
  // puts at risk is that cost times the chance of such a stop, which must fit in a share of what
  // compression saved so far; and even the stop right after it must leave the conversation no
  // dearer than uncompressed. Else the key's record must say conversations this far along go on.
  const atRisk = stopRisk(state.requests + 1, breakeven, input.history) * extra;
  if (
    input.riskBudget === false ||
    (atRisk <= state.savedUnits * RISK_SHARE && extra <= state.savedUnits + STOP_TOLERANCE * (input.spentUnits ?? 0)) ||
    recordVouches(state.requests + 1, breakeven, input.history)
  )
    return decision('breakeven', extra);
  return decision(undefined, 0);
}

/** Tokens of `results` that moved from one bucket to the other, for the savings estimate. */
export function removedTokens(
  results: readonly ToolResult[],
  tokens: (result: ToolResult, text: string) => number,
  received: (result: ToolResult) => number,
  lastAssistantItem: number,
): { cached: number; fresh: number } {
  let cached = 0;
  let fresh = 0;
  for (const r of results) {
    if (r.text === r.original && r.envelope?.receivedPrefix === undefined) continue;
    const removed = received(r) - tokens(r, r.text);
    if (r.item > lastAssistantItem) fresh += removed;
    else cached += removed;
  }
  return { cached, fresh };
}
