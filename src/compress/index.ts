// Compression engine: a pure library. The `/v1/compress` route (and chat completions, when a
// bundle is selected) call `compressPayload`; nothing here does I/O or calls a provider.
import { performance } from 'node:perf_hooks';
import { bundleFor, COMPRESSION_MODELS, isCompressionModel } from './bundles.js';
import { CompressionInputError } from './errors.js';
import { readRequest } from './formats/index.js';
import {
  applyRendering,
  boundaryAnchorItem,
  effectiveMaskBefore,
  renderRewrite,
  runFirstSight,
  type PipelineOptions,
  type Rendering,
} from './pipeline.js';
import {
  appliedStrategies,
  countRewrittenBodyTokens,
  countSourceTokens,
  tokenizerFor,
  type BodyCount,
} from './token-count.js';
import type {
  CompressionReport,
  CompressOptions,
  CompressResult,
  Conversation,
  OutputEnvelope,
  ToolResult,
} from './types.js';
import { receivedText, sentText } from './formats/shared.js';
import type { Bundle } from './bundles.js';
import { relativePrices, type CachePricing } from '../catalogue/cache-pricing.js';
import { NEW_CONVERSATION, type ConversationState } from './conversation-state.js';
import { decideRewrite, removedTokens, type RewriteDecision } from './rewrite-policy.js';
import { prefixDigest, verifiedState } from './prefix-digest.js';
import { supersededInputPlan } from './strategies/superseded-inputs.js';
import { inputSaving, RESTATED_INPUT_AS_CHANGES } from './strategies/restated-inputs.js';
import { countTextTokens, type TokenizerName } from '../tokenize/index.js';
import { applyToolSurface, TOOL_SURFACE_DECISION, type ToolSurfaceOptions } from './tool-surface.js';

export { BUNDLES, COMPRESSION_MODELS, isCompressionModel, type BundleName } from './bundles.js';
export { CompressionInputError } from './errors.js';
export { detectFormat } from './formats/index.js';
export { clearCompressionCaches } from './cache.js';
export { STRATEGY_NAMES } from './pipeline.js';
export type { CompressionReport, CompressOptions, CompressResult, RequestFormat } from './types.js';
export { NEW_CONVERSATION, withObservedUsage, type ConversationState } from './conversation-state.js';
export type { RewriteDecision, RewriteReason } from './rewrite-policy.js';

/** A request that belongs to a conversation the gateway keeps state for (conversation-state.ts). */
export interface ConversationOptions extends ToolSurfaceOptions {
  /** How the upstream prices and keeps its prompt cache for this request. */
  pricing: CachePricing;
  /** The conversation's state before this request; undefined for a conversation not seen yet. */
  state: ConversationState | undefined;
  now: number;
  /** Requests expected after this one, when the caller has a better estimate than the policy's. */
  expectedRemaining?: number;
  /** Lengths (in requests) of the key's finished conversations, for the policy's estimate. */
  history?: readonly number[];
  /** Set false to let a rewrite risk more than the conversation saved so far (experiments). */
  riskBudget?: boolean;
  /** Turns whose outputs are never masked, instead of the bundle's (experiments: bench/compress/cost.ts --keep-turns). */
  keepTurns?: number;
}

/** What a conversation's request decided, for the caller to store and to place breakpoints. */
export interface ConversationOutcome {
  /** The state to store for the next request (the upstream's usage is added when known). */
  state: ConversationState;
  decision: RewriteDecision;
  /**
   * Item (message index) after which the next rewrite may change anything: the assistant message
   * of the boundary turn; -1 when none. The gateway's Anthropic breakpoint goes there.
   */
  anchorItem: number;
  /**
   * When this request moved the boundary: the previous boundary's anchor, where the cache it can
   * read ends (the gateway keeps a breakpoint there for this request); -1 otherwise.
   */
  readAnchorItem: number;
  /** Estimated money saved on this request, in uncached-input-token units. */
  savedUnits: number;
  /**
   * Tokens removed from what the previous request already sent (read from the cache when it
   * hits) and from what is new in this one, as the request's tokenizer counts them.
   */
  removed: { cached: number; fresh: number };
  /** The stored state was for a history this request does not extend: it started over (prefix-digest.ts). */
  restarted: boolean;
}

/** Fraction of input tokens removed, 4 decimals: 1000 → 810 gives 0.19. */
export function compressionRate(before: number, after: number): number {
  if (before <= 0 || after >= before) return 0;
  return Math.round(((before - after) / before) * 10_000) / 10_000;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Compresses a chat (2.1), messages-style (2.2) or responses-style (2.3) body.
 * Only `messages` / `input` / `tools` may differ in the returned body; every other member,
 * `system` included, is passed through as is. Throws CompressionInputError for bodies that
 * cannot be converted. The bundle comes from `options.bundle` (header or per-key setting,
 * resolved by the caller) or else from the body's `compression_model`.
 */
/** The engine's options and result, conversation state included: plain data, so they cross to a worker thread. */
export type EngineOptions = CompressOptions & PipelineOptions & { conversation?: ConversationOptions };
export type EngineResult = CompressResult & { conversation?: ConversationOutcome };

export function compressPayload(body: unknown, options: EngineOptions = {}): EngineResult {
  const started = performance.now();
  const requested = options.bundle ?? (isObject(body) ? body.compression_model : undefined);
  if (requested !== undefined && !isCompressionModel(requested)) {
    throw new CompressionInputError(
      `Unknown compression_model ${describeValue(requested)}; expected one of ${COMPRESSION_MODELS.join(', ')}.`,
      'compression_model',
    );
  }
  const adapter = readRequest(body);
  const source = body as Record<string, unknown>;
  const { conversation } = adapter;
  const named = bundleFor(requested);
  const keepTurns = options.conversation?.keepTurns;
  const bundle = keepTurns === undefined ? named : { ...named, keepTurns };
  const tokenizer = tokenizerFor(source);
  // The source first: every text of the request is then counted (or found counted) once, and
  // the rewritten body only looks up what it shares with it.
  const counted = countSourceTokens(source, conversation.format, tokenizer);
  const before = counted.total;
  const refs = runFirstSight(conversation, bundle, tokenizer, options);
  let outcome: ConversationOutcome | undefined;
  if (options.conversation) {
    outcome = rewriteForConversation(conversation, bundle, refs, counted, tokenizer, options.conversation);
    // Tool definitions come first in the prompt: dropped only as the conversation decided once.
    const surface = applyToolSurface(
      conversation,
      source.tool_choice,
      options.conversation.state,
      options.only && !options.only.includes(TOOL_SURFACE_DECISION)
        ? { ...options.conversation, toolSurface: false }
        : options.conversation,
    );
    outcome.state = { ...outcome.state, ...surface };
  } else {
    const maskBefore = effectiveMaskBefore(conversation, bundle, options.maskBefore);
    const masking = maskBefore > 0 && (!options.only || options.only.includes('observation_masking'));
    const restating = !options.only || options.only.includes(RESTATED_INPUT_AS_CHANGES);
    if (masking || restating)
      applyRendering(
        conversation.results,
        renderRewrite(conversation.results, refs, masking ? maskBefore : 0, bundle, restating),
      );
  }
  const engineMs = performance.now() - started;
  const applied = appliedStrategies(conversation);
  const candidate = applied.length > 0 ? adapter.write() : source;
  const after = countRewrittenBodyTokens(source, candidate, counted, conversation.format, tokenizer);
  // Every change was kept only if it saved tokens for its own output; the rewritten body is sent
  // even if the total did not shrink: reverting it for this request alone would change the
  // prefix the next request shares with it.
  const report: CompressionReport = {
    // The public OpenAPI document of the spec: `tool` when a compression model (bundle) was
    // requested, `auto` when every applicable strategy was tried with the generic tables.
    technique: requested !== undefined ? 'tool' : 'auto',
    applied_strategies: applied,
    compression_rate: compressionRate(before, after),
    uncompressed_input_tokens: before,
    compressed_input_tokens: after,
    // A whole number of milliseconds (the public OpenAPI document types it integer).
    compression_time_ms: Math.round(performance.now() - started),
  };
  const totalMs = performance.now() - started;
  return {
    body: candidate,
    compression: report,
    timings: { engine_ms: engineMs, accounting_ms: totalMs - engineMs },
    ...(outcome ? { conversation: outcome } : {}),
  };
}

// A sealed output is a new string at every call; its count is kept with the envelope, which the
// requests of a conversation share (formats/output-envelope.ts memoises it by the text as sent).
const sentCounts = new WeakMap<OutputEnvelope, Map<TokenizerName, Map<string, number>>>();

/** A result's `text` counted inside its envelope (Codex). */
function sealedTokens(r: ToolResult, text: string, tokenizer: TokenizerName): number {
  const envelope = r.envelope!;
  let byTokenizer = sentCounts.get(envelope);
  if (!byTokenizer) {
    byTokenizer = new Map<TokenizerName, Map<string, number>>();
    sentCounts.set(envelope, byTokenizer);
  }
  let counts = byTokenizer.get(tokenizer);
  if (!counts) {
    counts = new Map<string, number>();
    byTokenizer.set(tokenizer, counts);
  }
  let count = counts.get(text);
  if (count === undefined) counts.set(text, (count = countTextTokens(sentText(r, text), tokenizer)));
  return count;
}

const receivedCounts = new WeakMap<OutputEnvelope, Map<TokenizerName, number>>();

/** A result's tokens as received, when its envelope's header was shortened. */
function receivedTokens(r: ToolResult, tokenizer: TokenizerName): number {
  let counts = receivedCounts.get(r.envelope!);
  if (!counts) receivedCounts.set(r.envelope!, (counts = new Map<TokenizerName, number>()));
  let count = counts.get(tokenizer);
  if (count === undefined) counts.set(tokenizer, (count = countTextTokens(receivedText(r), tokenizer)));
  return count;
}

/**
 * The history rewrite of a conversation's request: the boundary its state holds, moved when the
 * policy says so (rewrite-policy.ts), applied to the results; and the state for the next request.
 */
function rewriteForConversation(
  conversation: Conversation,
  bundle: Bundle,
  refs: string[][],
  counted: BodyCount,
  tokenizer: TokenizerName,
  options: ConversationOptions,
): ConversationOutcome {
  // The request's own tokenizer: the counts of its texts are cached already (item counts too).
  const tokens = (text: string) => countTextTokens(text, tokenizer);
  // A result's tokens as sent: an agent's envelope (Codex) counts too, and goes with a placeholder.
  const sent = (r: ToolResult, text: string) => (r.envelope ? sealedTokens(r, text, tokenizer) : tokens(text));
  // As it came: a header the envelope shortened counts as removed (formats/output-envelope.ts).
  const received = (r: ToolResult) =>
    r.envelope?.receivedPrefix !== undefined ? receivedTokens(r, tokenizer) : sent(r, r.original);
  const results = conversation.results;
  const verified = verifiedState(options.state ?? NEW_CONVERSATION, conversation);
  const state = verified.state;
  const current = effectiveMaskBefore(conversation, bundle, state.maskBefore);
  const candidate = Math.max(current, effectiveMaskBefore(conversation, bundle, Number.MAX_SAFE_INTEGER));
  const now = renderRewrite(results, refs, current, bundle);
  // What eliding a call's input saves, counted on the arguments' JSON (as the writers send them).
  const callIndex = new Map(results.map((r, i) => [r.callId, i]));
  // Against `except`: every call whose arguments differ between the two (a restatement shown as
  // changes in one may be elided, or shown in full, in the other).
  const inputSavings = (rendering: Rendering, except?: Rendering) => {
    const out: { item: number; saved: number }[] = [];
    const ids = except ? new Set([...except.inputs.keys(), ...rendering.inputs.keys()]) : rendering.inputs.keys();
    for (const id of ids) {
      const args = rendering.inputs.get(id);
      const was = except?.inputs.get(id);
      // Unchanged between the two: the same object (memoised), or the same text (a patch's or
      // heredoc's elision is rebuilt on every call).
      if (except && (args === was || (args && was && JSON.stringify(args) === JSON.stringify(was)))) continue;
      const call = results[callIndex.get(id)!]!.call!;
      out.push({ item: call.argsItem!, saved: inputSaving(call, args, tokenizer) - inputSaving(call, was, tokenizer) });
    }
    return out;
  };
  // Each item's tokens as sent under the current boundary (first-sight and masking applied).
  const itemTokens = counted.items?.slice();
  let total = counted.total;
  results.forEach((r, i) => {
    if (now.texts[i] === r.original && r.envelope?.receivedPrefix === undefined) return;
    const delta = received(r) - sent(r, now.texts[i]!);
    if (itemTokens && r.item < itemTokens.length) itemTokens[r.item]! -= delta;
    total -= delta;
  });
  const inputsNow = inputSavings(now);
  for (const { item, saved } of inputsNow) {
    if (itemTokens && item < itemTokens.length) itemTokens[item]! -= saved;
    total -= saved;
  }
  const spentUnits = spentBefore(conversation, counted, relativePrices(options.pricing).read);
  // Where the cache this request can read ends: taken before any output is masked.
  const currentAnchor = boundaryAnchorItem(conversation, current, bundle);
  const policy = (savedTokens: number, firstChangedItem: number) =>
    decideRewrite({
      pricing: options.pricing,
      state,
      now: options.now,
      current,
      candidate,
      itemTokens,
      totalTokens: total,
      lastAssistantItem: conversation.lastAssistantItem,
      anchorItem: currentAnchor,
      savedTokens,
      firstChangedItem,
      breakpointRules: options.pricing.rules.kind === 'breakpoints',
      expectedRemaining: options.expectedRemaining,
      history: options.history,
      riskBudget: options.riskBudget,
      spentUnits,
    });
  // Most requests move nothing: ask first with the most the rewrite could save (every output it
  // may touch removed) and the least it could change; only if that could pay is it rendered.
  let upperBound = 0;
  let lastChangeable = -1;
  results.forEach((r, i) => {
    if (r.turn < current || r.turn >= candidate) return;
    upperBound += sent(r, now.texts[i]!);
    lastChangeable = Math.max(lastChangeable, r.item);
  });
  // The inputs the candidate would elide: cheap to plan (memoised), and part of the bound.
  const candidateInputs = current < candidate ? supersededInputPlan(results, candidate, bundle) : now.inputs;
  for (const [id, args] of candidateInputs) {
    const shown = now.inputs.get(id);
    if (shown === args) continue;
    const call = results[callIndex.get(id)!]!.call!;
    upperBound += Math.max(0, inputSaving(call, args, tokenizer) - inputSaving(call, shown, tokenizer));
  }
  let next = now;
  let decision = policy(upperBound, lastChangeable);
  if (decision.reason !== undefined) {
    next = renderRewrite(results, refs, candidate, bundle);
    let savedTokens = 0;
    let firstChangedItem = Number.MAX_SAFE_INTEGER;
    results.forEach((r, i) => {
      if (next.texts[i] === now.texts[i]) return;
      savedTokens += sent(r, now.texts[i]!) - sent(r, next.texts[i]!);
      firstChangedItem = Math.min(firstChangedItem, r.item);
    });
    for (const { item, saved } of inputSavings(next, now)) {
      savedTokens += saved;
      firstChangedItem = Math.min(firstChangedItem, item);
    }
    decision = policy(savedTokens, firstChangedItem);
  }
  const rendered = decision.maskBefore === current ? now : next;
  applyRendering(results, rendered);
  const { read, write } = relativePrices(options.pricing);
  const removed = removedTokens(results, sent, received, conversation.lastAssistantItem);
  // Calls come before the newest assistant message: what their elided inputs save was cached.
  for (const { saved } of rendered === now ? inputsNow : inputSavings(next)) removed.cached += saved;
  const savedUnits = decision.cold
    ? write * (removed.cached + removed.fresh)
    : read * removed.cached + write * removed.fresh - decision.extraUnits;
  const maskBefore = Math.max(state.maskBefore, decision.maskBefore);
  const digest = maskBefore === state.maskBefore ? verified.digest : prefixDigest(results, maskBefore);
  return {
    state: {
      maskBefore,
      ...(digest !== undefined ? { prefixDigest: digest } : {}),
      ...(state.generation ? { generation: state.generation } : {}),
      rewriteAt: decision.reason ? options.now : state.rewriteAt,
      requests: state.requests + 1,
      lastRequestAt: options.now,
      lastCacheRead: null,
      lastCacheWrite: null,
      savedUnits: state.savedUnits + savedUnits,
    },
    decision,
    anchorItem: boundaryAnchorItem(conversation, decision.maskBefore, bundle),
    readAnchorItem: decision.maskBefore === current ? -1 : currentAnchor,
    savedUnits,
    removed,
    restarted: verified.restarted,
  };
}

/**
 * What the conversation's earlier requests cost uncompressed, at least: each one read its prompt
 * (everything before the assistant turn it produced) at the read price; the writes are left out.
 * Taken from this request's own items, so it needs no state.
 */
function spentBefore(conversation: Conversation, counted: BodyCount, read: number): number {
  const items = counted.items;
  if (!items) return 0;
  const turnStarts = new Set<number>();
  for (const r of conversation.results) if (r.call?.argsItem !== undefined) turnStarts.add(r.call.argsItem);
  let prefix = counted.total;
  for (const tokens of items) prefix -= tokens;
  let spent = 0;
  for (let i = 0; i < items.length; i++) {
    if (turnStarts.has(i)) spent += read * prefix;
    prefix += items[i]!;
  }
  return spent;
}

/** A short, safe rendering of a client value for an error message (String() can throw on objects). */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value.slice(0, 40)}'`;
  try {
    return (JSON.stringify(value) ?? typeof value).slice(0, 40);
  } catch {
    return typeof value;
  }
}
