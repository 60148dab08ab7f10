// What the gateway remembers about one conversation between its requests, so that every
// request (on any instance) rebuilds exactly the prefix the previous one sent, and so that a
// history rewrite is decided with the cache's state and the money at stake in view. Stored by
// src/store/compression-conversations.ts; the engine itself never does I/O.

export interface ConversationState {
  /** Outputs of assistant turns before this index are masked (0: history never rewritten). */
  maskBefore: number;
  /** When the boundary last moved (epoch ms), null when never. */
  rewriteAt: number | null;
  /** Requests of the conversation compressed so far. */
  requests: number;
  /** When the previous request was compressed (epoch ms), null for the first. */
  lastRequestAt: number | null;
  /** Prompt cache usage the upstream reported for the previous request; null when unknown. */
  lastCacheRead: number | null;
  lastCacheWrite: number | null;
  /**
   * Estimated money compression has saved this conversation so far, in units of one uncached
   * input token (rewrites' extra writes already taken off). A history rewrite never risks more
   * than this: if the conversation ended right after it, it would still not cost more than
   * uncompressed.
   */
  savedUnits: number;
  /**
   * The tool groups this conversation drops (tool-surface.ts), decided at its first request and
   * never changed; undefined: not decided yet (or stored before decisions existed).
   */
  droppedToolGroups?: readonly string[];
  /** Tool groups the first request offered (the key's history counts them); undefined: not recorded. */
  offeredToolGroups?: readonly string[];
  /** Tool groups the conversation's requests called so far. */
  calledToolGroups?: readonly string[];
  /**
   * Digest of the outputs before `maskBefore` as the request that stored the state saw them
   * (prefix-digest.ts): a later request gets the boundary only if its own outputs there hash the
   * same. Undefined when nothing is masked (or stored before digests existed: never applied).
   */
  prefixDigest?: string;
  /**
   * How many times a request under this id did not extend the stored prefix and started the
   * state over; a save never lets an older generation's boundary win (the store's rule).
   */
  generation?: number;
}

export const NEW_CONVERSATION: ConversationState = {
  maskBefore: 0,
  rewriteAt: null,
  requests: 0,
  lastRequestAt: null,
  lastCacheRead: null,
  lastCacheWrite: null,
  savedUnits: 0,
};

/** What the provider reported about the prompt cache for a request. */
export interface ObservedCacheUsage {
  cacheRead: number;
  cacheWrite: number;
}

/** The state once the upstream's usage for the state's last request is known. */
export function withObservedUsage(state: ConversationState, usage: ObservedCacheUsage): ConversationState {
  return { ...state, lastCacheRead: usage.cacheRead, lastCacheWrite: usage.cacheWrite };
}
