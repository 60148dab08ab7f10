// What compression saves in money, prompt caching counted (issue 19; the economics are in
// shared/guides/prompt-caching-economics.md). Every turn of every session is replayed in order,
// compressed as the gateway would, and priced by a simulated provider cache
// (src/catalogue/prompt-cache-simulator.ts) against the same session uncompressed.
//
//   node --import tsx bench/compress/cost.ts [--dataset DIR]... [--interval SECONDS] [--engine gateway|first-sight|ceiling]
//     [--order file|reverse|shuffle:SEED] [--oracle] [--no-budget] [--keep-turns N] [--tools FILE [--no-tool-surface]]
//     [--half a|b] [--part K/N] [--per-session]
//
// `--tools FILE` (chat-form tool definitions, e.g. bench/compress/fixtures/agent-tools.json) is sent
// with every request, as an agent sends its tool list; the key's record of which tool groups its
// finished conversations offered and called is learnt online like the lengths, so the tool surface
// decision (src/compress/tool-surface.ts) can drop unused groups from the 25th session on.
//
// Datasets: SWE-agent `.traj`, mini-swe-agent `.json` or Claude Code `.jsonl` directories, each
// reported on its own (default: all three of ../shared/datasets). Claude Code sessions bring
// their own stand-in system prompt and tools (claude-code-sessions.ts) and the session and agent
// id headers Claude Code sends; each subagent is a conversation of its own. Price models, per dataset:
// - anthropic any-prefix: a client that caches perfectly (every block a breakpoint);
// - anthropic breakpoints: the real rules, the client marking the end of the system prompt and its
//   last message (as Claude Code does), the gateway adding its own where it manages them;
// - openai: automatic caching, 1,024-token minimum, 128-token steps;
// - a client that sends no cache_control to Claude: direct (no caching at all), through the
//   gateway without its breakpoints, and with them (on by default).
// Requests of a session are `--interval` seconds apart (default 20): within every cache's TTL.
// Sessions are replayed in file order (`--order`: reversed, or shuffled by a seed): the key's
// history the rewrite policy learns from is the sessions replayed before, so the order tests
// how much its decisions depend on which conversations it happened to see first.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
  cachePricingFor,
  inputCostMicroUsd,
  type CachePricing,
  type CacheUsage,
} from '../../src/catalogue/cache-pricing.js';
import { PromptCacheSimulator, type PromptBlock } from '../../src/catalogue/prompt-cache-simulator.js';
import { clearCompressionCaches } from '../../src/compress/index.js';
import type { ToolGroupRecord } from '../../src/compress/tool-surface.js';
import { clearTokenCache, preloadEncoders, TOKENIZERS } from '../../src/tokenize/index.js';
import { loadDataset, prefixes, toShape, type Conversation } from './dataset.js';
import { half, ordered, part } from './session-order.js';
import { CODEX_FORMATS, toCodexShape, type CodexFormat } from './codex-shape.js';
import { chatBlocks, messagesBlocks } from './prompt-blocks.js';
import {
  ceilingEngine,
  firstSightEngine,
  gatewayEngine,
  type Scenario,
  type SessionCompressor,
} from './cost-engines.js';

type Body = Record<string, unknown>;

const args = process.argv.slice(2);
const many = (name: string) => args.flatMap((a, i) => (a === name && args[i + 1] ? [args[i + 1]!] : []));
const one = (name: string) => many(name)[0];
const DATASETS = many('--dataset').length
  ? many('--dataset')
  : [
      '/work/shared/datasets/swe-agent-trajectories',
      '/work/shared/datasets/mini-swe-agent-trajectories',
      '/work/shared/datasets/claude-code-sessions',
    ];
const INTERVAL_MS = Number(one('--interval') ?? 20) * 1000;
const LONG_SESSION = 30;

// Sonnet 4.5 and GPT-5 list prices: read 0.1×, Anthropic write 1.25×.
const ANTHROPIC = cachePricingFor('anthropic', {
  input_per_mtok: 3,
  output_per_mtok: 15,
  cached_input_per_mtok: 0.3,
  cache_write_per_mtok: 3.75,
});
const OPENAI = cachePricingFor('openai', { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 });
const NO_CACHE: CachePricing = { ...ANTHROPIC, rules: { kind: 'none' } };

const SCENARIOS: Scenario[] = [
  {
    name: 'anthropic any-prefix',
    pricing: ANTHROPIC,
    mode: 'any-prefix',
    shape: 'messages',
    clientBreakpoints: true,
    gatewayBreakpoints: true,
  },
  {
    name: 'anthropic breakpoints',
    pricing: ANTHROPIC,
    mode: 'rules',
    shape: 'messages',
    clientBreakpoints: true,
    gatewayBreakpoints: true,
  },
  {
    name: 'openai',
    pricing: OPENAI,
    mode: 'rules',
    shape: 'chat',
    clientBreakpoints: false,
    gatewayBreakpoints: false,
  },
  {
    name: 'no cache_control, gateway breakpoints',
    pricing: ANTHROPIC,
    mode: 'rules',
    shape: 'messages',
    clientBreakpoints: false,
    gatewayBreakpoints: true,
  },
  {
    name: 'no cache_control, no gateway breakpoints',
    pricing: ANTHROPIC,
    mode: 'rules',
    shape: 'messages',
    clientBreakpoints: false,
    gatewayBreakpoints: false,
  },
];

/** Claude Code's placement: the end of the system prompt and the last block of the last message. */
function withClientBreakpoints(body: Body): Body {
  const out: Body = { ...body };
  if (typeof body.system === 'string' && body.system)
    out.system = [{ type: 'text', text: body.system, cache_control: { type: 'ephemeral' } }];
  const messages = (body.messages as Body[]).slice();
  const last = messages[messages.length - 1];
  if (last) {
    const content =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : (last.content as Body[]).slice();
    content[content.length - 1] = { ...content[content.length - 1], cache_control: { type: 'ephemeral' } };
    messages[messages.length - 1] = { ...last, content };
  }
  out.messages = messages;
  return out;
}

/** `--tools`: chat-form definitions, written into each request in the shape it is sent in. */
const NO_TOOL_SURFACE = args.includes('--no-tool-surface');
const TOOLS = one('--tools') ? (JSON.parse(readFileSync(one('--tools')!, 'utf8')) as Body[]) : undefined;

function withTools(body: Body, shape: Scenario['shape'], definitions: Body[] | undefined): Body {
  if (!definitions) return body;
  if (shape === 'chat') return { ...body, tools: definitions };
  const tools = definitions.map((t) => {
    const f = t.function as { name: string; description?: string; parameters?: unknown };
    return { name: f.name, description: f.description ?? '', input_schema: f.parameters ?? { type: 'object' } };
  });
  return { ...body, tools };
}

interface Totals {
  cost: number;
  tokens: number;
  read: number;
}

interface SessionResult {
  name: string;
  requests: number;
  base: Totals;
  compressed: Totals;
  ms: number;
}

function addUsage(t: Totals, usage: CacheUsage, pricing: CachePricing) {
  t.cost += inputCostMicroUsd(pricing, usage);
  t.tokens += usage.uncached + usage.cacheRead + usage.cacheWrite;
  t.read += usage.cacheRead;
}

function replay(conv: Conversation, s: Scenario, compressor: SessionCompressor): SessionResult {
  const pricing =
    s.clientBreakpoints || s.gatewayBreakpoints || s.mode === 'any-prefix' || s.pricing.rules.kind !== 'breakpoints'
      ? s.pricing
      : NO_CACHE;
  const basePricing =
    s.clientBreakpoints || s.mode === 'any-prefix' || s.pricing.rules.kind !== 'breakpoints' ? s.pricing : NO_CACHE;
  const baseCache = new PromptCacheSimulator(basePricing, s.mode);
  const cache = new PromptCacheSimulator(pricing, s.mode);
  const base: Totals = { cost: 0, tokens: 0, read: 0 };
  const compressed: Totals = { cost: 0, tokens: 0, read: 0 };
  const blocksOf = (body: Body): PromptBlock[] => (s.shape === 'messages' ? messagesBlocks(body) : chatBlocks(body));
  const requests = prefixes(conv);
  let ms = 0;
  requests.forEach((messages, i) => {
    const now = i * INTERVAL_MS;
    const body = JSON.parse(
      JSON.stringify(withTools(toShape(messages, s.shape), s.shape, conv.tools ?? TOOLS)),
    ) as Body;
    const client = s.clientBreakpoints ? withClientBreakpoints(body) : body;
    addUsage(base, baseCache.request(blocksOf(client), now), basePricing);
    const t0 = performance.now();
    const sent = compressor.compress(JSON.parse(JSON.stringify(client)) as Body, now, conv.headers ?? {});
    ms += performance.now() - t0;
    const usage = cache.request(blocksOf(sent), now);
    compressor.observe(usage);
    addUsage(compressed, usage, pricing);
  });
  return { name: conv.name, requests: requests.length, base, compressed, ms };
}

const pct = (a: number, b: number) => (b === 0 ? 0 : (100 * a) / b);
const fmt = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`;

preloadEncoders(TOKENIZERS);
const engine = one('--engine') ?? 'gateway';
// Lengths of the sessions replayed so far in a scenario: the gateway learns how long its key's
// conversations last from the ones that finished (online, in file order; never the session
// being replayed).
const histories = new Map<string, number[]>();
const NO_HISTORY = args.includes('--no-history');
const toolHistories = new Map<string, ToolGroupRecord[]>();
const engineFor = (s: Scenario, total: number) =>
  engine === 'first-sight'
    ? firstSightEngine()
    : engine === 'ceiling'
      ? ceilingEngine()
      : gatewayEngine(
          s,
          {
            total,
            intervalMs: INTERVAL_MS,
            history: NO_HISTORY ? [] : (histories.get(s.name) ?? []),
            toolRecords: NO_HISTORY ? [] : (toolHistories.get(s.name) ?? []),
          },
          {
            oracle: ORACLE,
            riskBudget: !NO_BUDGET,
            ...(KEEP_TURNS !== undefined ? { keepTurns: KEEP_TURNS } : {}),
            toolSurface: !NO_TOOL_SURFACE,
          },
        );
// Experiments: the real number of requests left (an upper bound for any estimate), no risk budget.
const ORACLE = args.includes('--oracle');
const NO_BUDGET = args.includes('--no-budget');
// `--per-session`: each session's cost change under the three price models (for hold-out checks).
const PER_SESSION = args.includes('--per-session');
// Outputs of the latest N turns never masked, instead of the engine's 4 (what a narrower window would save).
const KEEP_TURNS = one('--keep-turns') === undefined ? undefined : Number(one('--keep-turns'));
// `--shapes`: each dataset as recorded (`native`) and as Codex would have sent it, in either of
// its output formats (codex-shape.ts). Default: all three.
const SHAPES = (one('--shapes') ?? ['native', ...CODEX_FORMATS].join(',')).split(',') as ('native' | CodexFormat)[];
for (const shape of SHAPES)
  if (shape !== 'native' && !CODEX_FORMATS.includes(shape))
    throw new Error(`--shapes: native, shell, exec; not ${shape}`);
const report: Record<string, unknown> = {};
/** Cost change per dataset, shape and price model, for the summary at the end. */
const summary: { dataset: string; shape: string; changes: number[]; compressed: number[] }[] = [];
for (const dir of DATASETS)
  for (const shape of SHAPES) {
    const recorded = loadDataset(dir);
    const asSent = shape === 'native' ? recorded : recorded.map((c) => toCodexShape(c, shape));
    const conversations = ordered(part(half(asSent, one('--half')), one('--part')), one('--order') ?? 'file');
    const dataset = `${dir.replace(/\/+$/, '').split('/').pop()!}${shape === 'native' ? '' : ` (codex ${shape})`}`;
    const requests = conversations.reduce((n, c) => n + prefixes(c).length, 0);
    console.log(
      `\n== ${dataset}: ${conversations.length} sessions, ${requests} requests (engine: ${engine}; requests ${INTERVAL_MS / 1000} s apart)`,
    );
    const perScenario: Record<string, SessionResult[]> = {};
    histories.clear();
    toolHistories.clear();
    for (const s of SCENARIOS) {
      const results: SessionResult[] = [];
      for (const conv of conversations) {
        clearCompressionCaches();
        clearTokenCache();
        const compressor = engineFor(s, prefixes(conv).length);
        results.push(replay(conv, s, compressor));
        histories.set(s.name, [prefixes(conv).length, ...(histories.get(s.name) ?? [])]);
        const record = compressor.toolRecord?.();
        if (record) toolHistories.set(s.name, [record, ...(toolHistories.get(s.name) ?? [])]);
      }
      perScenario[s.name] = results;
    }
    const sum = (rs: SessionResult[], f: (r: SessionResult) => number) => rs.reduce((n, r) => n + f(r), 0);
    const any = perScenario[SCENARIOS[0]!.name]!;
    const long = any.filter((r) => r.requests >= LONG_SESSION);
    const tokB = sum(any, (r) => r.base.tokens);
    const tokC = sum(any, (r) => r.compressed.tokens);
    console.log(`raw input tokens: ${tokB} → ${tokC} (${fmt(-pct(tokB - tokC, tokB))})`);
    if (long.length)
      console.log(
        `  sessions with ≥ ${LONG_SESSION} requests (${long.length}): ${fmt(
          -pct(
            sum(long, (r) => r.base.tokens - r.compressed.tokens),
            sum(long, (r) => r.base.tokens),
          ),
        )}`,
      );
    summary.push({
      dataset: dataset.replace(/ \(codex \w+\)$/, ''),
      shape,
      changes: SCENARIOS.slice(0, 3).map((sc) => {
        const rs = perScenario[sc.name]!;
        const b = sum(rs, (r) => r.base.cost);
        return pct(sum(rs, (r) => r.compressed.cost) - b, b);
      }),
      compressed: SCENARIOS.slice(0, 3).map((sc) => sum(perScenario[sc.name]!, (r) => r.compressed.cost)),
    });
    console.log(`input cost with caching, compressed vs the same sessions uncompressed:`);
    console.log(
      `  ${'price model'.padEnd(42)} ${'cost'.padStart(9)}  ${'worse'.padStart(6)} ${'>+0.5%'.padStart(6)}  ${'worst'.padStart(8)}  cache-hit share`,
    );
    for (const s of SCENARIOS.slice(0, 3)) {
      const rs = perScenario[s.name]!;
      const b = sum(rs, (r) => r.base.cost);
      const c = sum(rs, (r) => r.compressed.cost);
      const deltas = rs.map((r) => pct(r.compressed.cost - r.base.cost, r.base.cost));
      const hitB = pct(
        sum(rs, (r) => r.base.read),
        sum(rs, (r) => r.base.tokens),
      );
      const hitC = pct(
        sum(rs, (r) => r.compressed.read),
        sum(rs, (r) => r.compressed.tokens),
      );
      console.log(
        `  ${s.name.padEnd(42)} ${fmt(pct(c - b, b)).padStart(9)}  ${String(deltas.filter((d) => d > 0).length).padStart(6)} ${String(deltas.filter((d) => d > 0.5).length).padStart(6)}  ${fmt(Math.max(...deltas)).padStart(8)}  ${hitB.toFixed(1)} % → ${hitC.toFixed(1)} %`,
      );
    }
    if (PER_SESSION)
      any.forEach((r, i) =>
        console.log(
          `    ${r.name.slice(0, 48).padEnd(48)} ${String(r.requests).padStart(4)} req  ${SCENARIOS.slice(0, 3)
            .map((sc) => {
              const x = perScenario[sc.name]![i]!;
              return fmt(pct(x.compressed.cost - x.base.cost, x.base.cost)).padStart(8);
            })
            .join(' ')}`,
        ),
      );
    // A chat-completions client that sends no cache_control to Claude: direct, no caching at all.
    const direct = sum(any, (r) => r.base.tokens) * ANTHROPIC.inputPerMtok;
    console.log(`client without cache_control to Claude, input cost vs direct (no caching):`);
    for (const s of SCENARIOS.slice(3)) {
      const rs = perScenario[s.name]!;
      const c = sum(rs, (r) => r.compressed.cost);
      console.log(
        `  through the gateway, ${s.name.slice('no cache_control, '.length).padEnd(24)} ${fmt(pct(c - direct, direct))}`,
      );
    }
    const ms = sum(perScenario[SCENARIOS[1]!.name]!, (r) => r.ms);
    console.log(
      `compression time (fresh caches per session, this bench's bodies): ${((ms / tokB) * 100_000).toFixed(2)} ms per 100k input tokens`,
    );
    report[dataset] = Object.fromEntries(
      Object.entries(perScenario).map(([k, rs]) => [
        k,
        rs.map((r) => ({ name: r.name, requests: r.requests, base: r.base, compressed: r.compressed })),
      ]),
    );
  }
if (SHAPES.length > 1) {
  console.log(
    `\n== cost change by shape (${SCENARIOS.slice(0, 3)
      .map((s) => s.name)
      .join(' / ')}); Codex minus native in points`,
  );
  for (const row of summary) {
    const native = summary.find((r) => r.dataset === row.dataset && r.shape === 'native');
    const gap =
      native && row.shape !== 'native'
        ? `  (${row.changes.map((c, i) => (c - native.changes[i]!).toFixed(1)).join(' / ')})`
        : '';
    console.log(`  ${row.dataset.padEnd(30)} ${row.shape.padEnd(7)} ${row.changes.map(fmt).join(' / ')}${gap}`);
  }
  // The percentages above are against each shape's own uncompressed cost, and a Codex shape's
  // envelopes make that larger (exec headers that compression removes): what the agent pays,
  // compressed, in one shape against the other.
  console.log(`\n== compressed cost, Codex shape against the same sessions native and compressed`);
  for (const row of summary) {
    const native = summary.find((r) => r.dataset === row.dataset && r.shape === 'native');
    if (!native || row.shape === 'native') continue;
    const vs = row.compressed.map((c, i) => fmt(pct(c - native.compressed[i]!, native.compressed[i]!)));
    console.log(`  ${row.dataset.padEnd(30)} ${row.shape.padEnd(7)} ${vs.join(' / ')}`);
  }
}
