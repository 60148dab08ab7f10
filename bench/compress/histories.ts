// Conversation state per history (issue 28 item 2), measured on the Claude Code sessions: each
// session's main thread and subagents replayed interleaved as Claude Code sends them (a
// subagent's requests between the main request that called `Task` and the one that reads its
// report), every request 20 s after the previous one, through the gateway's own path
// (compressConversationRequest: ids from the session headers, one store for the whole key),
// priced by a simulated cache against the same requests uncompressed. cost.ts replays each
// thread with a state of its own by construction; this one shows what the ids do.
//
//   node --import tsx bench/compress/histories.ts [--dataset DIR] [--shared]
//
// `--shared`: every request of a session under one id, the stored boundary still verified
// (prefix-digest.ts): what the verification alone does when ids collide.
import { createHash } from 'node:crypto';
import { cachePricingFor, inputCostMicroUsd, type CachePricing } from '../../src/catalogue/cache-pricing.js';
import type { ProviderKind } from '../../src/canonical/provider-kinds.js';
import {
  PromptCacheSimulator,
  type PromptBlock,
  type SimulationMode,
} from '../../src/catalogue/prompt-cache-simulator.js';
import { compressConversationRequest, type ConversationStore } from '../../src/compress/conversation-request.js';
import type { ConversationState } from '../../src/compress/conversation-state.js';
import { clearCompressionCaches } from '../../src/compress/index.js';
import { sessionIdFrom } from '../../src/compress/session-headers.js';
import { clearTokenCache, preloadEncoders, TOKENIZERS } from '../../src/tokenize/index.js';
import { AGENT_HEADER, loadClaudeCodeSession } from './claude-code-sessions.js';
import { prefixes, toShape, type Conversation } from './dataset.js';
import { chatBlocks, messagesBlocks } from './prompt-blocks.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

type Body = Record<string, unknown>;

const args = process.argv.slice(2);
const datasetAt = args.indexOf('--dataset');
const DATASET = (datasetAt >= 0 ? args[datasetAt + 1] : undefined) ?? '/work/shared/datasets/claude-code-sessions';
const SHARED = args.includes('--shared');
const INTERVAL_MS = 20_000;

interface Scenario {
  name: string;
  kind: ProviderKind;
  pricing: CachePricing;
  mode: SimulationMode;
  shape: 'messages' | 'chat';
}

const SCENARIOS: Scenario[] = [
  {
    name: 'anthropic any-prefix',
    kind: 'anthropic',
    pricing: cachePricingFor('anthropic', {
      input_per_mtok: 3,
      output_per_mtok: 15,
      cached_input_per_mtok: 0.3,
      cache_write_per_mtok: 3.75,
    }),
    mode: 'any-prefix',
    shape: 'messages',
  },
  {
    name: 'openai',
    kind: 'openai',
    pricing: cachePricingFor('openai', { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 }),
    mode: 'rules',
    shape: 'chat',
  },
];

/** One request of the interleaved replay: the thread it belongs to and its messages. */
interface Step {
  thread: Conversation;
  messages: Body[];
}

/**
 * The session's requests in the order Claude Code sent them: each thread's requests, with the
 * requests of a subagent right after the request whose answer called its `Task`.
 */
function interleaved(threads: Conversation[]): Step[] {
  const children = new Map<string, Conversation>();
  for (const t of threads) {
    const agent = t.headers?.[AGENT_HEADER];
    if (agent) children.set(agent.slice('agent-'.length), t);
  }
  const steps: Step[] = [];
  const walk = (thread: Conversation) => {
    for (const messages of prefixes(thread)) {
      steps.push({ thread, messages });
      const answer = thread.messages[messages.length] as { tool_calls?: { id: string }[] } | undefined;
      for (const call of answer?.tool_calls ?? []) {
        const child = children.get(call.id);
        if (child) walk(child);
      }
    }
  };
  walk(threads[0]!);
  return steps;
}

/** The key's conversation state as the store keeps it, usage attached to the request that produced it. */
function memoryStore(): ConversationStore {
  const states = new Map<string, ConversationState>();
  return {
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
    async recordUsage(_key, id, requests, usage) {
      const state = states.get(id);
      if (state && state.requests === requests)
        states.set(id, { ...state, lastCacheRead: usage.cacheRead, lastCacheWrite: usage.cacheWrite });
    },
  };
}

interface Totals {
  base: number;
  compressed: number;
  requests: number;
  rewrites: number;
  restarts: number;
}

const empty = (): Totals => ({ base: 0, compressed: 0, requests: 0, rewrites: 0, restarts: 0 });

async function replaySession(threads: Conversation[], s: Scenario, main: Totals, subagents: Totals): Promise<number> {
  clearCompressionCaches();
  clearTokenCache();
  const store = memoryStore();
  const baseCache = new PromptCacheSimulator(s.pricing, s.mode);
  const cache = new PromptCacheSimulator(s.pricing, s.mode);
  const blocksOf = (body: Body): PromptBlock[] => (s.shape === 'messages' ? messagesBlocks(body) : chatBlocks(body));
  const sharedId = createHash('sha256').update(threads[0]!.name).digest('hex');
  let ms = 0;
  const steps = interleaved(threads);
  for (const [i, step] of steps.entries()) {
    const now = i * INTERVAL_MS;
    const body = JSON.parse(
      JSON.stringify({ ...toShape(step.messages, s.shape), tools: toolsOf(step.thread, s.shape) }),
    ) as Body;
    const base = baseCache.request(blocksOf(body), now);
    const t0 = performance.now();
    const result = await compressConversationRequest(body, {
      apiKeyId: 'bench',
      sessionId: SHARED ? `shared=${sharedId}` : sessionIdFrom(step.thread.headers ?? {}),
      compress: true,
      bundle: undefined,
      provider: { kind: s.kind, id: s.kind, baseUrl: undefined },
      pricing: s.pricing,
      manageCache: true,
      addCacheHints: s.kind === 'anthropic',
      store: SHARED ? sharedStore(store, sharedId) : store,
      now,
    });
    ms += performance.now() - t0;
    const usage = cache.request(blocksOf(result.body), now);
    result.settle({
      inputTokens: usage.uncached + usage.cacheRead + usage.cacheWrite,
      cachedInputTokens: usage.cacheRead,
      cacheCreationInputTokens: usage.cacheWrite,
    });
    const totals = step.thread === threads[0] ? main : subagents;
    totals.base += inputCostMicroUsd(s.pricing, base);
    totals.compressed += inputCostMicroUsd(s.pricing, usage);
    totals.requests++;
    if (result.outcome?.decision.reason) totals.rewrites++;
    if (result.outcome?.restarted) totals.restarts++;
  }
  return ms;
}

/** `--shared`: every id of the session is one. */
function sharedStore(store: ConversationStore, id: string): ConversationStore {
  return {
    load: (key) => store.load(key, id),
    save: (key, _id, state) => store.save(key, id, state),
    history: (key) => store.history(key),
    recordUsage: (key, _id, requests, usage) => store.recordUsage(key, id, requests, usage),
  };
}

function toolsOf(thread: Conversation, shape: Scenario['shape']): unknown[] {
  const tools = thread.tools ?? [];
  if (shape === 'chat') return tools;
  return tools.map((t) => {
    const f = t.function as { name: string; description?: string; parameters?: unknown };
    return { name: f.name, description: f.description ?? '', input_schema: f.parameters ?? { type: 'object' } };
  });
}

const pct = (t: Totals) => `${(((t.compressed - t.base) / t.base) * 100).toFixed(1)} %`;

preloadEncoders(TOKENIZERS);
const sessions = readdirSync(DATASET)
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .map((f) => loadClaudeCodeSession(join(DATASET, f), f.replace(/\.jsonl$/, '')));
console.log(
  `== ${DATASET.split('/').pop()}: ${sessions.length} sessions, threads interleaved, ${SHARED ? 'one id per session (--shared)' : 'ids from the session headers and the history'}`,
);
for (const s of SCENARIOS) {
  const main = empty();
  const subagents = empty();
  let ms = 0;
  for (const threads of sessions) ms += await replaySession(threads, s, main, subagents);
  const all: Totals = {
    base: main.base + subagents.base,
    compressed: main.compressed + subagents.compressed,
    requests: main.requests + subagents.requests,
    rewrites: main.rewrites + subagents.rewrites,
    restarts: main.restarts + subagents.restarts,
  };
  console.log(`${s.name}:`);
  for (const [name, t] of [
    ['all', all],
    ['main threads', main],
    ['subagents', subagents],
  ] as const)
    console.log(
      `  ${name.padEnd(13)} ${pct(t).padStart(8)}  ${String(t.requests).padStart(4)} requests, ${t.rewrites} rewrites, ${t.restarts} restarts`,
    );
  console.log(`  ${(ms / all.requests).toFixed(2)} ms per request`);
}
