// One conversation state per history (issue 28 item 2): the id names a history by its session
// headers, head and first assistant turn (src/compress/conversation-id.ts), and a stored rewrite
// boundary reaches only a history whose outputs before it hash as stored (prefix-digest.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { conversationIds } from '../../src/compress/conversation-id.js';
import {
  compressConversationRequest,
  type ConversationRequest,
  type ConversationResult,
  type ConversationStore,
} from '../../src/compress/conversation-request.js';
import type { ConversationState } from '../../src/compress/conversation-state.js';
import { compressPayload, NEW_CONVERSATION } from '../../src/compress/index.js';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import { anthropicConversationRequest } from '../support/conversation-request.js';

type Obj = Record<string, any>;

function memoryStore(): ConversationStore & { states: Map<string, ConversationState> } {
  const states = new Map<string, ConversationState>();
  return {
    states,
    async load(_key, id) {
      return states.get(id);
    },
    async save(_key, id, state) {
      states.set(id, state);
    },
    async forget(_key, id) {
      states.delete(id);
    },
    async history() {
      return [];
    },
    async recordUsage() {},
  };
}

/** A different, maskable output per call: long enough that its placeholder saves a lot. */
const output = (tag: string, i: number) =>
  Array.from({ length: 60 }, (_, line) => `${tag} line ${line} of output ${i}: value ${(line * 7919 + i) % 1000}`).join(
    '\n',
  );

/** A Claude Code-style history: `task`, then `turns` Bash calls with ids prefixed `tag`. */
function messagesBody(task: string, tag: string, turns: number): Obj {
  const messages: Obj[] = [{ role: 'user', content: task }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${tag}_${i}`, name: 'Bash', input: { command: `cat file${i}.txt` } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${tag}_${i}`, content: output(tag, i) }],
    });
  }
  return { model: 'claude-sonnet-4-5', system: 'You are Claude Code.', messages, max_tokens: 1000 };
}

/** A Codex-style history: the same instructions and environment context for every session of a directory. */
function responsesBody(tag: string, turns: number): Obj {
  const input: Obj[] = [
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions>read-only</permissions>' }],
    },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: '<environment_context><cwd>/work/project</cwd></environment_context>' }],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Summarise the repository.' }] },
  ];
  for (let i = 0; i < turns; i++) {
    input.push({
      type: 'function_call',
      name: 'shell',
      call_id: `call_${tag}_${i}`,
      arguments: `{"command":["cat","f${i}"]}`,
    });
    input.push({ type: 'function_call_output', call_id: `call_${tag}_${i}`, output: output(tag, i) });
  }
  return { model: 'gpt-5', instructions: 'You are Codex, a coding agent. AGENTS.md: ...', input };
}

/** Requests an hour apart: every cache is cold, so the policy moves the boundary as far as it may. */
const HOUR = 3_600_000;

async function send(
  store: ConversationStore,
  body: Obj,
  at: number,
  over: Partial<ConversationRequest> = {},
): Promise<ConversationResult & { body: Obj }> {
  return (await compressConversationRequest(
    body,
    anthropicConversationRequest({ store, now: at * HOUR, ...over }),
  )) as ConversationResult & { body: Obj };
}

const masked = (result: ConversationResult) => result.compression!.applied_strategies.includes('observation_masking');

describe('conversation histories: ids', () => {
  it('two sessions of one directory without a session header get two states', async () => {
    const store = memoryStore();
    const a = [await send(store, responsesBody('a', 0), 0, { sessionId: undefined })];
    const b = [await send(store, responsesBody('b', 0), 0, { sessionId: undefined })];
    // Their first requests are the same text: nothing to tell them apart yet, and nothing masked.
    assert.equal(a[0]!.conversationId, b[0]!.conversationId);
    for (let turn = 1; turn <= 8; turn++) {
      a.push(await send(store, responsesBody('a', turn), turn, { sessionId: undefined }));
      b.push(await send(store, responsesBody('b', turn), turn, { sessionId: undefined }));
    }
    assert.notEqual(a[8]!.conversationId, b[8]!.conversationId);
    assert.equal(a[8]!.conversationId, a[1]!.conversationId, 'one id for the whole history from its second request');
    const stateA = store.states.get(a[8]!.conversationId)!;
    const stateB = store.states.get(b[8]!.conversationId)!;
    assert.equal(stateA.requests, 9, 'the first request counted once, in its own history');
    // B's first request stored its state under the same head, which A's second request took over:
    // B's second request starts afresh.
    assert.equal(stateB.requests, 8);
    assert.equal(store.states.size, 2, 'no row left under the head: the key records two conversations');
    assert.ok(stateA.maskBefore > 0 && stateB.maskBefore > 0, 'each history rewrote under its own state');
    assert.notEqual(stateA.prefixDigest, stateB.prefixDigest);
  });

  it("a history's second request takes over its first request's state, and the head's row is forgotten", async () => {
    const store = memoryStore();
    const first = await send(store, messagesBody('Fix it.', 'a', 0), 0);
    assert.ok(store.states.has(first.conversationId));
    const second = await send(store, messagesBody('Fix it.', 'a', 1), 1);
    assert.notEqual(second.conversationId, first.conversationId);
    assert.equal(store.states.get(second.conversationId)!.requests, 2);
    assert.ok(!store.states.has(first.conversationId));
  });

  it('the first request of a history starts afresh, even when another session stored state under the same head', async () => {
    const store = memoryStore();
    await send(store, responsesBody('a', 0), 0, { sessionId: undefined });
    await send(store, responsesBody('a', 1), 1, { sessionId: undefined });
    const second = await send(store, responsesBody('b', 0), 2, { sessionId: undefined });
    assert.equal(store.states.get(second.conversationId)!.requests, 1);
  });

  it('keeps the prompt cache key of the head: the same on a history first request and on its later ones', () => {
    const first = conversationIds(responsesBody('a', 0));
    const later = conversationIds(responsesBody('a', 5));
    assert.equal(first.head, later.head);
    assert.equal(first.history, first.head);
    assert.notEqual(later.history, later.head);
  });

  it("the task's cache_control mark (the client's last message on the first request only) is not part of the head", () => {
    const first = messagesBody('Fix it.', 'a', 0);
    first.messages[0].content = [{ type: 'text', text: 'Fix it.', cache_control: { type: 'ephemeral' } }];
    const later = messagesBody('Fix it.', 'a', 3);
    later.messages[0].content = [{ type: 'text', text: 'Fix it.' }];
    assert.equal(conversationIds(first, 's').head, conversationIds(later, 's').head);
  });

  it('leaves thinking blocks out of the first turn (clients drop them from later requests)', () => {
    const body = messagesBody('Fix it.', 'a', 2);
    const withThinking = structuredClone(body);
    withThinking.messages[1].content.unshift({ type: 'thinking', thinking: 'hmm', signature: 'sig' });
    assert.equal(conversationIds(body, 's').history, conversationIds(withThinking, 's').history);
  });
});

describe('conversation histories: Claude Code subagents and compactions', () => {
  const MAIN = 'x-claude-code-session-id=8b51c413-4e09-4762-9fc5-ffdaec04ff5f';
  const SUBAGENT = `${MAIN}\nx-claude-code-agent-id=agent-7f2c`;

  it("a subagent's requests never move the main conversation's boundary", async () => {
    const store = memoryStore();
    let main: ConversationResult & { body: Obj } = await send(store, messagesBody('Fix the bug.', 'm', 0), 0, {
      sessionId: MAIN,
    });
    for (let turn = 1; turn <= 7; turn++)
      main = await send(store, messagesBody('Fix the bug.', 'm', turn), turn, { sessionId: MAIN });
    const before = structuredClone(store.states.get(main.conversationId)!);
    assert.ok(before.maskBefore > 0);
    // The subagent's history is longer: under a shared state it would have moved the boundary further.
    let sub: ConversationResult | undefined;
    for (let turn = 0; turn <= 14; turn++)
      sub = await send(store, messagesBody('Search the code base for the parser.', 's', turn), 8 + turn, {
        sessionId: SUBAGENT,
      });
    assert.notEqual(sub!.conversationId, main.conversationId);
    assert.ok(store.states.get(sub!.conversationId)!.maskBefore > before.maskBefore);
    assert.deepEqual(store.states.get(main.conversationId), before);
    // The main agent goes on, a request later, warm: its boundary is where its own policy left it.
    const next = await send(store, messagesBody('Fix the bug.', 'm', 8), 7 + 1 / 60, { sessionId: MAIN });
    assert.equal(next.conversationId, main.conversationId);
    assert.equal(next.outcome!.state.maskBefore, before.maskBefore);
    assert.equal(next.outcome!.restarted, false);
  });

  it('a post-compaction history gets its own state; the history it replaced keeps its own', async () => {
    const store = memoryStore();
    let main: ConversationResult | undefined;
    for (let turn = 0; turn <= 9; turn++)
      main = await send(store, messagesBody('Fix the bug.', 'm', turn), turn, { sessionId: MAIN });
    const mainState = structuredClone(store.states.get(main!.conversationId)!);
    const summary = 'This session is being continued from a previous conversation. Summary: the bug is in the parser.';
    const compacted = await send(store, messagesBody(summary, 'c', 1), 10, { sessionId: MAIN });
    assert.notEqual(compacted.conversationId, main!.conversationId);
    assert.equal(compacted.outcome!.restarted, false, 'a state of its own, not one restarted from the old history');
    assert.equal(store.states.get(compacted.conversationId)!.requests, 1);
    assert.deepEqual(store.states.get(main!.conversationId), mainState);
  });
});

describe('conversation histories: the stored boundary is verified', () => {
  const pricing = cachePricingFor('anthropic', { input_per_mtok: 3, output_per_mtok: 15 });
  const run = (body: Obj, state: ConversationState | undefined, now: number) =>
    compressPayload(body, { conversation: { pricing, state, now } });

  /** The state history `tag` stored after a rewrite (its cache had gone cold: the rewrite was free). */
  function rewritten(tag: string): ConversationState {
    const cold: ConversationState = { ...NEW_CONVERSATION, requests: 10, lastRequestAt: 0 };
    const state = run(messagesBody('Fix the bug.', tag, 10), cold, HOUR).conversation!.state;
    assert.ok(state.maskBefore > 0 && state.prefixDigest !== undefined);
    return state;
  }

  it('a history that extends the stored prefix gets the stored boundary, without a new rewrite', () => {
    const state = rewritten('a');
    const next = run(messagesBody('Fix the bug.', 'a', 11), state, HOUR + 2000);
    assert.equal(next.conversation!.restarted, false);
    assert.equal(next.conversation!.decision.reason, undefined, 'a warm cache: the boundary does not move');
    assert.equal(next.conversation!.state.maskBefore, state.maskBefore);
    assert.ok(next.compression.applied_strategies.includes('observation_masking'));
  });

  it('a mismatching prefix never gets the stored boundary', () => {
    const state = rewritten('a');
    // Another history with as many turns (a subagent, a compaction, another session under one id).
    const other = run(messagesBody('Fix the bug.', 'b', 11), state, HOUR + 2000);
    assert.equal(other.conversation!.restarted, true);
    assert.ok(!other.compression.applied_strategies.includes('observation_masking'));
    assert.equal(other.conversation!.state.maskBefore, 0);
    assert.equal(other.conversation!.state.generation, 1);
    assert.equal(other.conversation!.state.requests, 1);
  });

  it('an old output edited by the client is a mismatch too (its outputs, not only its ids, are hashed)', () => {
    const state = rewritten('a');
    const edited = messagesBody('Fix the bug.', 'a', 11);
    edited.messages[2].content[0].content = '[Old tool result content cleared]';
    const next = run(edited, state, HOUR + 2000);
    assert.equal(next.conversation!.restarted, true);
    assert.ok(!next.compression.applied_strategies.includes('observation_masking'));
  });

  it('a history shorter than the stored boundary is a mismatch', () => {
    const state = rewritten('a');
    const next = run(messagesBody('Fix the bug.', 'a', state.maskBefore - 1), state, HOUR + 2000);
    assert.equal(next.conversation!.restarted, true);
  });

  it('a boundary stored without a digest (before digests existed) is never applied', () => {
    const { prefixDigest: _digest, ...legacy } = rewritten('a');
    const next = run(messagesBody('Fix the bug.', 'a', 11), legacy, HOUR + 2000);
    assert.equal(next.conversation!.restarted, true);
    assert.ok(!next.compression.applied_strategies.includes('observation_masking'));
  });

  it('through the store: a mismatching history under the stored id is masked only where its own policy decided', async () => {
    const store = memoryStore();
    let a: ConversationResult | undefined;
    for (let turn = 0; turn <= 10; turn++)
      a = await send(store, messagesBody('Fix the bug.', 'a', turn), turn, { sessionId: 'one-id' });
    const stored = store.states.get(a!.conversationId)!;
    assert.ok(stored.maskBefore > 0);
    // The same id for another history: the ids keep histories apart, this checks the net under them.
    store.states.set(conversationIds(messagesBody('Fix the bug.', 'b', 10), 'one-id').history, stored);
    const b = await send(store, messagesBody('Fix the bug.', 'b', 10), 10 + 1 / 60, { sessionId: 'one-id' });
    assert.equal(b.outcome!.restarted, true);
    assert.equal(b.outcome!.decision.maskBefore, 0, 'a warm cache: no rewrite of its own either');
    assert.ok(!masked(b));
  });
});
