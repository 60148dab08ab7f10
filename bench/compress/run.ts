// Compression benchmark: token reduction, engine speed and prompt-cache stability of
// consecutive turns, first-sight transforms only (no history rewrite: that needs conversation
// state, measured in money by cost.ts). See dataset.ts for how requests are built.
//   node --import tsx bench/compress/run.ts [--dataset DIR] [--codex shell|exec] [--cold] [--no-warmup] [--speed-only] [--conversation]
//
// `--codex FORMAT` replays the dataset as Codex would have sent it (codex-shape.ts): its tools,
// and every shell output in the envelope of that output format.
// `--conversation` times the gateway's path instead: each request with its conversation's state
// (rewrite policy under Anthropic prices, renderings, state for the next request).
//
// Timing is meant to be what a real agent gets from /v1/compress:
// - every request body is a fresh JSON parse (outside the timer), as the route receives it, so
//   no string is shared with an earlier request (shared strings hash and compare for free);
// - every compression and token-count cache is emptied when a conversation starts, so a
//   request only profits from the earlier turns of its own conversation (which the agent
//   really did send before), never from another conversation or another shape of the same one;
// - the tokenizer vocabularies are loaded first, as `gateway serve` does before it listens;
// - the process first compresses synthetic conversations unrelated to the dataset (warmup.ts)
//   so that V8 has compiled the engine, as in a gateway that has been serving for a while;
//   every cache, the piece memo included, is emptied afterwards (`--no-warmup` skips it);
// - the tokenizer's piece memo (word → token count, vocabulary-like, see src/tokenize) is kept
//   across conversations, as in a running gateway;
// - `--cold` empties every cache, the piece memo included, before every request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import {
  clearCompressionCaches,
  compressPayload,
  STRATEGY_NAMES,
  type ConversationState,
} from '../../src/compress/index.js';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import { clearPieceMemos, clearTokenCache, preloadEncoders, TOKENIZERS } from '../../src/tokenize/index.js';
import { GENERIC_BUNDLE } from '../../src/compress/bundles.js';
import { loadDataset, prefixes, toShape, type Shape } from './dataset.js';
import { warmupConversations } from './warmup.js';
import { CODEX_FORMATS, toCodexShape, type CodexFormat } from './codex-shape.js';
import { CATEGORIES, tokenBreakdown } from './breakdown.js';
import { TRAJECTORY_DIR } from '../../test/fixtures/trajectories.js';

const here = dirname(fileURLToPath(import.meta.url));
const datasetArg = process.argv.indexOf('--dataset');
const DATA = datasetArg >= 0 ? process.argv[datasetArg + 1]! : TRAJECTORY_DIR;
const SHAPES: Shape[] = ['chat', 'messages', 'responses'];
const cold = process.argv.includes('--cold');
const CONVERSATION = process.argv.includes('--conversation');
const ANTHROPIC = cachePricingFor('anthropic', { input_per_mtok: 3, output_per_mtok: 15 });

type Body = Record<string, unknown>;
const per100k = (ms: number) => (ms / (stats.before / 100_000)).toFixed(2);
const pct = (a: number, b: number) => (b === 0 ? '0.0' : ((100 * a) / b).toFixed(1));

/** The conversation part of a body: messages (chat, messages) or input items (responses). */
const itemsOf = (b: Body) =>
  (Array.isArray(b.messages) ? b.messages : Array.isArray(b.input) ? b.input : []) as unknown[];

function prefixStable(prev: Body, next: Body): boolean {
  const a = itemsOf(prev);
  const b = itemsOf(next);
  if (JSON.stringify(prev.system ?? prev.instructions) !== JSON.stringify(next.system ?? next.instructions))
    return false;
  if (JSON.stringify(prev.tools) !== JSON.stringify(next.tools)) return false;
  return a.every((item, i) => JSON.stringify(item) === JSON.stringify(b[i]));
}

function clearCaches(): void {
  clearCompressionCaches();
  clearTokenCache();
  if (cold) clearPieceMemos();
}

// `gateway serve` loads the vocabularies before it listens; so does the benchmark.
preloadEncoders(TOKENIZERS);
const warmup = !process.argv.includes('--no-warmup');
if (warmup) {
  const synthetic = warmupConversations().map((messages) => ({ name: 'warmup', native: true, messages }));
  for (let round = 0; round < 3; round++) {
    for (const conv of synthetic) {
      for (const shape of SHAPES)
        for (const messages of prefixes(conv)) compressPayload(JSON.parse(JSON.stringify(toShape(messages, shape))));
    }
  }
  clearCaches();
  clearPieceMemos();
}
const codexArg = process.argv.indexOf('--codex');
const CODEX = codexArg >= 0 ? (process.argv[codexArg + 1] as CodexFormat) : undefined;
if (CODEX !== undefined && !CODEX_FORMATS.includes(CODEX)) throw new Error(`--codex: shell or exec, not ${CODEX}`);
const conversations = CODEX ? loadDataset(DATA).map((c) => toCodexShape(c, CODEX)) : loadDataset(DATA);
const stats = {
  requests: 0,
  before: 0,
  after: 0,
  engineMs: 0,
  wallMs: 0,
  cpuMs: 0,
  transitions: 0,
  stable: 0,
  bySubset: { native: { before: 0, after: 0, requests: 0 }, converted: { before: 0, after: 0, requests: 0 } },
  byShape: {} as Record<string, { before: number; after: number }>,
  applied: {} as Record<string, number>,
};

for (const shape of SHAPES) {
  const s = (stats.byShape[shape] = { before: 0, after: 0 });
  for (const conv of conversations) {
    let previous: Body | undefined;
    let state: ConversationState | undefined;
    let turn = 0;
    clearCaches();
    for (const messages of prefixes(conv)) {
      const body = JSON.parse(JSON.stringify(toShape(messages, shape))) as Body;
      if (cold) clearCaches();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const result = CONVERSATION
        ? compressPayload(body, { conversation: { pricing: ANTHROPIC, state, now: 20_000 * turn++ } })
        : compressPayload(body);
      state = result.conversation?.state;
      stats.wallMs += performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      stats.cpuMs += (cpu.user + cpu.system) / 1000;
      const c = result.compression;
      stats.requests++;
      stats.before += c.uncompressed_input_tokens;
      stats.after += c.compressed_input_tokens;
      stats.engineMs += result.timings.engine_ms;
      s.before += c.uncompressed_input_tokens;
      s.after += c.compressed_input_tokens;
      const sub = stats.bySubset[conv.native ? 'native' : 'converted'];
      sub.before += c.uncompressed_input_tokens;
      sub.after += c.compressed_input_tokens;
      sub.requests++;
      for (const name of c.applied_strategies) stats.applied[name] = (stats.applied[name] ?? 0) + 1;
      if (previous) {
        stats.transitions++;
        if (prefixStable(previous, result.body)) stats.stable++;
      }
      previous = result.body;
    }
  }
}

// Each strategy alone, over the same requests (`--speed-only` skips this).
const speedOnly = process.argv.includes('--speed-only');
const alone: Record<string, number> = {};
for (const name of speedOnly ? [] : STRATEGY_NAMES) {
  let after = 0;
  for (const shape of SHAPES) {
    for (const conv of conversations) {
      for (const messages of prefixes(conv))
        after += compressPayload(toShape(messages, shape), { only: [name] }).compression.compressed_input_tokens;
    }
  }
  alone[name] = stats.before - after;
}

const breakdown = speedOnly ? undefined : tokenBreakdown(conversations, GENERIC_BUNDLE.keepTurns);
const breakdownTotal = breakdown ? CATEGORIES.reduce((n, c) => n + breakdown[c].before, 0) : 0;
const breakdownLines = breakdown
  ? [
      `where the input is (chat shape, text tokens without message framing; share of all → after compression):`,
      ...CATEGORIES.map(
        (c) =>
          `  ${c.padEnd(34)} ${String(breakdown[c].before).padStart(8)}  ${pct(breakdown[c].before, breakdownTotal).padStart(5)} %  → ${String(breakdown[c].after).padStart(8)}  (−${pct(breakdown[c].before - breakdown[c].after, breakdown[c].before)} % of it)`,
      ),
    ]
  : [];

const lines = [
  `compression benchmark (first-sight transforms) — ${DATA.replace(/\/+$/, '').split('/').pop()}${CODEX ? ` (codex ${CODEX})` : ''}: ${conversations.length} sessions, ${stats.requests} requests (${SHAPES.join(', ')}); caches emptied ${cold ? 'before every request' : 'when a conversation starts'}; ${warmup ? 'compiled on synthetic conversations first' : 'no warm-up'}`,
  `input tokens: ${stats.before} → ${stats.after}  (−${pct(stats.before - stats.after, stats.before)} %)`,
  ...SHAPES.map(
    (sh) =>
      `  ${sh.padEnd(10)} ${stats.byShape[sh]!.before} → ${stats.byShape[sh]!.after}  (−${pct(stats.byShape[sh]!.before - stats.byShape[sh]!.after, stats.byShape[sh]!.before)} %)`,
  ),
  `  native function-calling runs (${stats.bySubset.native.requests} req): −${pct(stats.bySubset.native.before - stats.bySubset.native.after, stats.bySubset.native.before)} %`,
  `  text-action runs as tool calls (${stats.bySubset.converted.requests} req): −${pct(stats.bySubset.converted.before - stats.bySubset.converted.after, stats.bySubset.converted.before)} %`,
  ...breakdownLines,
  ...(speedOnly
    ? [`requests each strategy was applied in (full pipeline; tokens alone are not measured with --speed-only):`]
    : [`per strategy, alone (tokens saved, share of input; applied in N requests of the full pipeline):`]),
  ...STRATEGY_NAMES.map((n) =>
    speedOnly
      ? `  ${n.padEnd(32)} ${stats.applied[n] ?? 0}`
      : `  ${n.padEnd(32)} ${String(alone[n]).padStart(9)}  −${pct(alone[n]!, stats.before).padStart(4)} %   ${stats.applied[n] ?? 0}`,
  ),
  `speed, ms per 100k input tokens: engine (conversion + strategies) ${per100k(stats.engineMs)}; end to end (what /v1/compress does, token accounting included) ${per100k(stats.wallMs)} wall, ${per100k(stats.cpuMs)} CPU`,
  `cache stability: ${stats.stable}/${stats.transitions} consecutive turns byte-stable (${pct(stats.stable, stats.transitions)} %)`,
];
console.log(lines.join('\n'));
const out = join(here, '../.results');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `compress${cold ? '-cold' : ''}.json`), JSON.stringify({ stats, alone, breakdown }, null, 2));
