// A stored rewrite boundary is applied only to the history it was decided for. What a boundary
// acts on is the outputs of the turns before it, so those are what is verified: each one's turn,
// call id, length and the ends of its original text, hashed when the boundary is stored and again
// on every later request. Not the whole texts: they are most of a long history, and hashing them on
// every request cost about 0.6 ms per 100k tokens (bench/compress/run.ts --speed-only) for no
// better answer: call ids are random per call, and an edited output changes its length or ends
// (the placeholder masking writes shows the length and the status footer at the end). A history that does not extend the stored one (a subagent's or a post-compaction
// history under the same id, a client that edited old outputs) hashes differently and starts its
// state over instead of being masked where another history's policy decided.
import { createHash } from 'node:crypto';
import { NEW_CONVERSATION, type ConversationState } from './conversation-state.js';
import type { Conversation, ToolResult } from './types.js';

/** Characters of each end of an output that the digest covers. */
const ENDS = 64;

/** Hex SHA-256 of the results of turns before `before`, as the client sent them. */
export function prefixDigest(results: readonly ToolResult[], before: number): string {
  const hash = createHash('sha256').update(`before\u0000${before}`);
  for (const r of results) {
    if (r.turn >= before) continue;
    const text = r.original;
    const ends = text.length <= 2 * ENDS ? text : `${text.slice(0, ENDS)}\u0000${text.slice(-ENDS)}`;
    hash.update(`\u0001${r.turn}\u0000${r.callId}\u0000${text.length}\u0000${ends}`);
  }
  return hash.digest('hex');
}

export interface VerifiedState {
  state: ConversationState;
  /** The digest of the verified prefix (undefined when the state masks nothing). */
  digest: string | undefined;
  /** The stored state was for another history: this one starts over. */
  restarted: boolean;
}

/**
 * The stored state if this request's history extends the one it was stored for, else a new
 * state (the tool surface, decided once per id, kept; the generation counted up).
 */
export function verifiedState(state: ConversationState, conversation: Conversation): VerifiedState {
  if (state.maskBefore <= 0) return { state, digest: undefined, restarted: false };
  if (conversation.turnCount >= state.maskBefore && state.prefixDigest !== undefined) {
    const digest = prefixDigest(conversation.results, state.maskBefore);
    if (digest === state.prefixDigest) return { state, digest, restarted: false };
  }
  const fresh: ConversationState = { ...NEW_CONVERSATION, generation: (state.generation ?? 0) + 1 };
  if (state.droppedToolGroups) fresh.droppedToolGroups = state.droppedToolGroups;
  if (state.offeredToolGroups) fresh.offeredToolGroups = state.offeredToolGroups;
  if (state.calledToolGroups) fresh.calledToolGroups = state.calledToolGroups;
  return { state: fresh, digest: undefined, restarted: true };
}
