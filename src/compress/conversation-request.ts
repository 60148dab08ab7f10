// One request of a conversation, as the gateway compresses it on the chat path and on
// /v1/compress alike (so a client that compresses and then calls its provider itself gets the
// same stable prefixes): its state loaded, the engine run with the upstream's cache pricing,
// the state saved for the next request (on any instance), the gateway's cache breakpoints for
// Anthropic and a stable prompt_cache_key for OpenAI added, and, once the upstream answered,
// what compression saved priced from the usage it reported. The store is passed in: this
// module does no I/O of its own.
import { takesPromptCacheKey, type CachePricing } from '../catalogue/cache-pricing.js';
import { countBreakpoints, placeBreakpoints } from './breakpoints.js';
import type { BundleName } from './bundles.js';
import { conversationIds, type ConversationIds } from './conversation-id.js';
import type { ConversationState } from './conversation-state.js';
import { compressPayload, type ConversationOutcome, type EngineOptions, type EngineResult } from './index.js';
import type { CompressionReport } from './types.js';
import { unusedToolGroups, type ToolGroupHistory } from './tool-surface.js';

type Obj = Record<string, unknown>;

/** Where conversation state lives (src/store/compression-conversations.ts implements it). */
export interface ConversationStore {
  load(apiKeyId: string, conversationId: string): Promise<ConversationState | undefined>;
  save(apiKeyId: string, conversationId: string, state: ConversationState): Promise<void>;
  history(apiKeyId: string): Promise<readonly number[]>;
  /** The tool groups the key's finished conversations offered and called (absent: nothing is ever dropped). */
  toolGroupHistory?(apiKeyId: string): Promise<ToolGroupHistory>;
  /**
   * Removes a conversation's row: the head a history's first request was stored under, once its
   * second request has taken the state over (else every history would leave a finished
   * conversation of one request in the key's record). Absent: the row just expires.
   */
  forget?(apiKeyId: string, conversationId: string): Promise<void>;
  recordUsage(
    apiKeyId: string,
    conversationId: string,
    requests: number,
    usage: { cacheRead: number; cacheWrite: number },
  ): Promise<void>;
}

export interface ConversationRequest {
  apiKeyId: string;
  /** The session key of the headers the client sent (session-headers.ts), if any. */
  sessionId: string | undefined;
  /** Run the compression engine (a bundle was named, or the key compresses). */
  compress: boolean;
  bundle: BundleName | undefined;
  /** The upstream that will get the request, and its cache pricing. */
  provider: { kind: string; id: string; baseUrl: string | undefined };
  pricing: CachePricing;
  /**
   * The prompt will be cached the way the gateway manages it: the rewrite policy prices it so.
   * (Off, and the client placed no breakpoint: an Anthropic request is priced as uncached.)
   */
  manageCache: boolean;
  /** Put the gateway's cache hints in the body: Anthropic breakpoints, OpenAI prompt_cache_key. */
  addCacheHints: boolean;
  store: ConversationStore | undefined;
  now: number;
  /**
   * The tool-surface decision (tool-surface.ts): on unless false (X-Gateway-Tool-Surface: off),
   * in which case this request drops no tool and a new conversation decides to drop none.
   */
  toolSurface?: boolean;
  /**
   * Runs the engine; compressPayload inline when absent. The gateway passes one that moves big
   * bodies to its worker pool (src/offload): state and history travel as plain data.
   */
  runEngine?: (body: Obj, options: EngineOptions) => Promise<EngineResult>;
  /** Failures of the store: compression goes on without state rather than failing the request. */
  onStoreError?: (error: unknown) => void;
}

/** The prompt usage an upstream reported, in the gateway's terms. */
export interface PromptUsage {
  /** Every prompt token, cached ones included. */
  inputTokens: number;
  cachedInputTokens: number;
  cacheCreationInputTokens: number;
}

export interface ConversationResult {
  body: Obj;
  /** The engine's report; undefined when the engine did not run. */
  compression: CompressionReport | undefined;
  /** The id the history's state is stored under (hashed on first read when the engine did not need it). */
  readonly conversationId: string;
  /** The history's head id when this request already hashed it (never hashed for this): usage rows' fallback session. */
  readonly knownConversationHead: string | undefined;
  outcome: ConversationOutcome | undefined;
  /** Breakpoints the gateway added (Anthropic). */
  breakpointsAdded: number;
  /** Estimated money saved, in micro-USD, before the upstream answered. */
  estimatedSavingsMicroUsd: number;
  /**
   * Called with the upstream's usage: stores the cache usage for the conversation's next
   * decision and returns what compression saved in micro-USD, priced with the cache the
   * upstream reported (reads at the read price when the request read the cache, writes at the
   * write price). Idempotent.
   */
  settle(usage: PromptUsage): number;
}

export async function compressConversationRequest(
  body: Obj,
  request: ConversationRequest,
): Promise<ConversationResult> {
  // Hashed only when something uses it: the engine's state, or OpenAI's prompt_cache_key. The
  // hash covers the history's head, which can be megabytes (JSON-encoded and SHA-256'd on the
  // event loop: the largest part of a 1 MB local/echo chat's main-thread time under
  // bench/attack's bigtoken). When the engine runs it is taken first, from the body as sent.
  let ids = request.compress ? conversationIds(body, request.sessionId) : undefined;
  const idsOf = (): ConversationIds => (ids ??= conversationIds(body, request.sessionId));
  const idOf = (): string => idsOf().history;
  // A provider that caches only at breakpoints (Anthropic): with none from the client and none
  // from the gateway nothing is cached, and the rewrite policy must price the request that way.
  const breakpoints = request.pricing.rules.kind === 'breakpoints';
  const caching = !breakpoints || request.manageCache || countBreakpoints(body) > 0;
  const pricing: CachePricing = caching ? request.pricing : { ...request.pricing, rules: { kind: 'none' } };

  let out = body;
  let report: CompressionReport | undefined;
  let outcome: ConversationOutcome | undefined;
  if (request.compress) {
    const store = request.store;
    let state: ConversationState | undefined;
    let fromHead = false;
    let history: readonly number[] | undefined;
    let unusedTools: string[] | undefined;
    const toolSurface = request.toolSurface !== false;
    if (store) {
      try {
        let tools: ToolGroupHistory | undefined;
        let loaded: LoadedState;
        [loaded, history, tools] = await Promise.all([
          loadState(store, request.apiKeyId, idsOf()),
          store.history(request.apiKeyId),
          toolSurface && store.toolGroupHistory ? store.toolGroupHistory(request.apiKeyId) : undefined,
        ]);
        ({ state, fromHead } = loaded);
        // Only a conversation's first request decides its tool surface.
        if (tools && (!state || state.requests === 0)) unusedTools = unusedToolGroups(tools);
      } catch (error) {
        request.onStoreError?.(error);
      }
    }
    const options: EngineOptions = {
      ...(request.bundle ? { bundle: request.bundle } : {}),
      conversation: {
        pricing,
        state,
        now: request.now,
        ...(history ? { history } : {}),
        ...(unusedTools?.length ? { unusedToolGroups: unusedTools } : {}),
        ...(toolSurface ? {} : { toolSurface: false }),
      },
    };
    const result = request.runEngine ? await request.runEngine(body, options) : compressPayload(body, options);
    out = result.body;
    report = result.compression;
    outcome = result.conversation;
    if (store && outcome) {
      try {
        await store.save(request.apiKeyId, idOf(), outcome.state);
        if (fromHead) await store.forget?.(request.apiKeyId, idsOf().head);
      } catch (error) {
        request.onStoreError?.(error);
      }
    }
  }

  let breakpointsAdded = 0;
  if (breakpoints && request.addCacheHints) {
    const placed = placeBreakpoints(out, outcome?.anchorItem ?? -1, outcome?.readAnchorItem ?? -1);
    out = placed.body;
    breakpointsAdded = placed.added;
  }
  if (request.addCacheHints && takesPromptCacheKey(request.provider) && out.prompt_cache_key === undefined)
    out = { ...out, prompt_cache_key: `gw-${idsOf().head.slice(0, 40)}` };

  const estimated = outcome ? outcome.savedUnits * pricing.inputPerMtok : 0;
  let settled: number | undefined;
  return {
    body: out,
    compression: report,
    get conversationId() {
      return idOf();
    },
    get knownConversationHead() {
      return ids?.head;
    },
    outcome,
    breakpointsAdded,
    estimatedSavingsMicroUsd: Math.round(estimated),
    settle(usage) {
      if (settled !== undefined) return settled;
      settled = outcome ? Math.round(savedFromUsage(pricing, outcome, usage)) : 0;
      if (request.store && outcome) {
        request.store
          .recordUsage(request.apiKeyId, idOf(), outcome.state.requests, {
            cacheRead: usage.cachedInputTokens,
            cacheWrite: usage.cacheCreationInputTokens,
          })
          .catch((error: unknown) => request.onStoreError?.(error));
      }
      return settled;
    },
  };
}

interface LoadedState {
  state: ConversationState | undefined;
  /** Taken over from the head's row, which is then forgotten. */
  fromHead: boolean;
}

/**
 * The state a request starts from. A history's first request (no assistant turn: `history` is its
 * `head`) starts afresh: sessions sharing a head (one directory, no session header) must not pass
 * state to each other, and a first request has nothing masked to keep stable. Its second request,
 * the first under the history's own id, starts from what the first stored under the head (its tool
 * surface decision, the cache it filled); the engine still verifies any boundary against the
 * history (prefix-digest.ts).
 */
async function loadState(store: ConversationStore, apiKeyId: string, ids: ConversationIds): Promise<LoadedState> {
  if (ids.history === ids.head) return { state: undefined, fromHead: false };
  const own = await store.load(apiKeyId, ids.history);
  if (own) return { state: own, fromHead: false };
  const head = await store.load(apiKeyId, ids.head);
  return { state: head, fromHead: head !== undefined };
}

/**
 * What the removed tokens would have cost, at the prices the upstream's usage says applied:
 * tokens removed from the already-sent part at the read price when the request read the cache
 * (else at the write price it paid for them), new tokens at the write price, minus what a
 * history rewrite paid extra to write the rewritten tail again.
 */
export function savedFromUsage(pricing: CachePricing, outcome: ConversationOutcome, usage: PromptUsage): number {
  const hit = usage.cachedInputTokens > 0 && !outcome.decision.cold;
  const wrote = usage.cacheCreationInputTokens > 0 || pricing.rules.kind !== 'breakpoints';
  const fresh = wrote ? pricing.cacheWritePerMtok : pricing.inputPerMtok;
  const old = hit ? pricing.cacheReadPerMtok : fresh;
  const extra = outcome.decision.extraUnits * pricing.inputPerMtok;
  return outcome.removed.cached * old + outcome.removed.fresh * fresh - extra;
}
