// Which sessions cost.ts replays, and in which order: the key's history the rewrite policy
// learns from is the sessions replayed before, so the order and a hold-out half test how much
// its decisions depend on the sessions it happened to see.
import type { Conversation } from './dataset.js';

/** The sessions in the replay order asked for; a seeded shuffle is the same on every run. */
export function ordered<T>(items: T[], order: string): T[] {
  if (order === 'file') return items;
  if (order === 'reverse') return items.slice().reverse();
  const seed = /^shuffle:(\d+)$/.exec(order);
  if (!seed) throw new Error(`--order: file, reverse or shuffle:SEED, not ${order}`);
  let x = Number(seed[1]) + 1;
  const next = () => (x = (x * 48271) % 2147483647) / 2147483647;
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * `--half a|b`: every other session in file order (a subagent goes with its main thread), to
 * check on one half what was measured on the other. `--part K/N` generalises it: every N-th
 * session from the K-th (1-based), so `--part 1/3`, `2/3`, `3/3` are three disjoint thirds and
 * `--half a` is `--part 1/2`.
 */
export function half(conversations: Conversation[], which: string | undefined): Conversation[] {
  if (which === undefined) return conversations;
  if (which !== 'a' && which !== 'b') throw new Error(`--half: a or b, not ${which}`);
  return part(conversations, which === 'a' ? '1/2' : '2/2');
}

export function part(conversations: Conversation[], which: string | undefined): Conversation[] {
  if (which === undefined) return conversations;
  const m = /^(\d+)\/(\d+)$/.exec(which);
  const k = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || n < 1 || k < 1 || k > n) throw new Error(`--part: K/N with 1 ≤ K ≤ N, not ${which}`);
  // A Codex shape names a main thread `name (codex exec)` and its subagent `name/agent (codex exec)`.
  const session = (c: Conversation) => c.name.replace(/ \(codex \w+\)$/, '').split('/')[0]!;
  const sessions = [...new Set(conversations.map(session))];
  const kept = new Set(sessions.filter((_, i) => i % n === k - 1));
  return conversations.filter((c) => kept.has(session(c)));
}
