// The most any compression could save on the dataset under issue 4's invariants, whatever its
// strategies: an upper bound, not a measurement of the engine.
//
//   node --import tsx bench/compress/ceiling.ts [--stable=0.95]
//
// The invariants, read literally: the system prompt, user messages and the latest K turns are
// untouched, and consecutive requests of a conversation share a byte-identical prefix except on
// at most (1 − stable) of the pairs (a "break", where the masking window steps). So a turn's
// bytes can change only at a break, and only if it is no longer among the latest K turns then;
// until the next break it stays as it was. The bound grants every change for free: tool output
// that may change is counted as removed entirely (no placeholder, no pointer), and breaks are
// placed where they save most (a dynamic programme per conversation, then a knapsack over
// conversations for the shared budget of breaks). Also printed: the same with old assistant text
// removable too, which the invariants do not name but which carries the agent's reasoning.
import { countRequestTokens, countTextTokens } from '../../src/tokenize/index.js';
import { loadConversations, prefixes, toShape, type Conversation } from './dataset.js';

type Msg = Record<string, unknown>;
type Call = { function: { arguments: string } };

const DATA = new URL('../../test/fixtures/swe-agent-trajectories', import.meta.url).pathname;
const stableArg = process.argv.find((a) => a.startsWith('--stable='));
const STABLE = stableArg ? Number(stableArg.slice('--stable='.length)) : 0.95;

const tokens = (text: unknown) => (typeof text === 'string' ? countTextTokens(text, 'o200k_base') : 0);
const hasCalls = (m: Msg) => ((m.tool_calls as Call[] | undefined)?.length ?? 0) > 0;

interface ConversationProfile {
  /** Input tokens of each request (chat shape, as the compress benchmark counts them). */
  requestTokens: number[];
  /** Tool-call turns in each request's prefix. */
  turnsAt: number[];
  /** Removable tokens of each tool-call turn: its tool outputs (and, in the second variant, the assistant's text). */
  toolOutput: number[];
  assistantText: number[];
}

function profile(conv: Conversation): ConversationProfile {
  const requests = prefixes(conv);
  const toolOutput: number[] = [];
  const assistantText: number[] = [];
  let turn = -1;
  for (const m of conv.messages) {
    if (m.role === 'assistant' && hasCalls(m)) {
      turn++;
      toolOutput[turn] = 0;
      assistantText[turn] = tokens(m.content);
    } else if (m.role === 'tool' && turn >= 0) toolOutput[turn]! += tokens(m.content);
  }
  return {
    requestTokens: requests.map((messages) => countRequestTokens(toShape(messages, 'chat') as never, 'o200k_base')),
    turnsAt: requests.map((messages) => messages.filter((m) => m.role === 'assistant' && hasCalls(m)).length),
    toolOutput,
    assistantText,
  };
}

/**
 * best[b] = most tokens saved over the conversation's requests with b breaks. A break at request
 * r (r ≥ 1; request 0 has no predecessor, so it is free) lets every turn older than the latest K
 * change; the saving R(r) then holds for every request until the next break.
 */
function bestPerBreaks(
  p: ConversationProfile,
  keep: number,
  removable: (turn: number) => number,
  maxBreaks: number,
): number[] {
  const n = p.requestTokens.length;
  const prefix = [0];
  for (let t = 0; t < p.toolOutput.length; t++) prefix.push(prefix[t]! + removable(t));
  const savingFrom = (r: number) => prefix[Math.max(0, Math.min(p.toolOutput.length, p.turnsAt[r]! - keep))]!;
  // g[k][r]: most saved over requests r..n−1 when r is a break (or r = 0) and k more breaks may follow.
  const g: number[][] = Array.from({ length: maxBreaks + 1 }, () => new Array<number>(n).fill(0));
  for (let k = 0; k <= maxBreaks; k++) {
    for (let r = n - 1; r >= 0; r--) {
      let best = savingFrom(r) * (n - r);
      if (k > 0)
        for (let next = r + 1; next < n; next++) best = Math.max(best, savingFrom(r) * (next - r) + g[k - 1]![next]!);
      g[k]![r] = best;
    }
  }
  return Array.from({ length: maxBreaks + 1 }, (_, k) => g[k]![0]!);
}

/** Knapsack over conversations: the most saved with at most `budget` breaks in all. */
function bestOverall(tables: number[][], budget: number): number {
  let best = new Array<number>(budget + 1).fill(0);
  for (const table of tables) {
    const next = new Array<number>(budget + 1).fill(-Infinity);
    for (let used = 0; used <= budget; used++) {
      if (best[used] === -Infinity) continue;
      for (let b = 0; b < table.length && used + b <= budget; b++)
        next[used + b] = Math.max(next[used + b]!, best[used]! + table[b]!);
    }
    best = next;
  }
  return Math.max(...best);
}

const conversations = loadConversations(DATA);
const profiles = conversations.map(profile);
const total = profiles.reduce((n, p) => n + p.requestTokens.reduce((a, b) => a + b, 0), 0);
const pairs = profiles.reduce((n, p) => n + p.requestTokens.length - 1, 0);
const budget = Math.floor((1 - STABLE) * pairs);
const requests = profiles.reduce((n, p) => n + p.requestTokens.length, 0);

console.log(
  `compression ceiling — ${conversations.length} trajectories, ${requests} chat-shape requests, ${total} input tokens; ${pairs} consecutive pairs, ≥ ${(STABLE * 100).toFixed(0)} % byte-stable allows ${budget} breaks`,
);
console.log(
  'upper bound on the input tokens removed (every changeable tool output removed entirely, breaks placed optimally):',
);
console.log('  latest K turns untouched   tool output only     + old assistant text');
for (const keep of [1, 2, 3, 4]) {
  const cells = [
    (t: number, p: ConversationProfile) => p.toolOutput[t]!,
    (t: number, p: ConversationProfile) => p.toolOutput[t]! + p.assistantText[t]!,
  ].map((removable) => {
    const tables = profiles.map((p) => bestPerBreaks(p, keep, (t) => removable(t, p), budget));
    return `${((100 * bestOverall(tables, budget)) / total).toFixed(1).padStart(6)} %`;
  });
  console.log(`  K = ${keep}                      ${cells[0]}             ${cells[1]}`);
}
const everyTurn = profiles.reduce(
  (n, p) =>
    n +
    p.requestTokens.reduce(
      (s, _, r) => s + p.toolOutput.slice(0, Math.max(0, p.turnsAt[r]! - 1)).reduce((a, b) => a + b, 0),
      0,
    ),
  0,
);
console.log(
  `for reference, no stability at all (a break on every pair), K = 1, tool output only: ${((100 * everyTurn) / total).toFixed(1)} %`,
);
