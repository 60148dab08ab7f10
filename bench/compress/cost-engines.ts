// The compressors bench/compress/cost.ts replays sessions through: first-sight transforms only,
// the ceiling of anything that only touches tool output, and what the gateway does.
import type { CachePricing, CacheUsage } from '../../src/catalogue/cache-pricing.js';
import type { SimulationMode } from '../../src/catalogue/prompt-cache-simulator.js';
import { compressPayload, withObservedUsage, type ConversationState } from '../../src/compress/index.js';
import { placeBreakpoints } from '../../src/compress/breakpoints.js';
import { aggregateToolGroups, unusedToolGroups, type ToolGroupRecord } from '../../src/compress/tool-surface.js';

type Body = Record<string, unknown>;

/** A price model and client behaviour a dataset is replayed under. */
export interface Scenario {
  name: string;
  pricing: CachePricing;
  mode: SimulationMode;
  shape: 'messages' | 'chat';
  /** The client marks the end of its system prompt and its last message. */
  clientBreakpoints: boolean;
  /** The gateway may place its own breakpoints (Anthropic upstreams). */
  gatewayBreakpoints: boolean;
}

/** What the gateway engine knows of the session and of the key's earlier ones. */
export interface SessionContext {
  /** Requests in the session (used only by the oracle). */
  total: number;
  intervalMs: number;
  /** Lengths of the key's finished conversations (the sessions replayed before). */
  history: readonly number[];
  /** Their tool groups offered and called. */
  toolRecords: readonly ToolGroupRecord[];
}

/** Experiment switches of cost.ts (`--oracle`, `--no-budget`, `--keep-turns`, `--no-tool-surface`). */
export interface Experiment {
  oracle: boolean;
  riskBudget: boolean;
  keepTurns?: number;
  toolSurface: boolean;
}

/** One session's compressor: the engine under test, fed the usage each answer reported. */
export interface SessionCompressor {
  /** `headers`: what the agent sent with the request (session and agent ids). */
  compress(body: Body, nowMs: number, headers: Readonly<Record<string, string>>): Body;
  observe(usage: CacheUsage): void;
  /** The tool groups the session offered and called, for the key's record (gateway engine only). */
  toolRecord?(): ToolGroupRecord | undefined;
}

/** First-sight transforms only: no conversation state, no history rewrite, no breakpoints. */
export function firstSightEngine(): SessionCompressor {
  return { compress: (body) => compressPayload(body).body, observe: () => {} };
}

/**
 * The ceiling of anything that only touches tool output (`--engine ceiling`): every tool output
 * removed entirely the first time it is sent (stable, so every cache keeps hitting). No
 * compressor that keeps the latest outputs readable can save more; the system prompt, the task
 * and the assistant's own messages stay.
 */
export function ceilingEngine(): SessionCompressor {
  const blank = (body: Body): Body => ({
    ...body,
    messages: (body.messages as Body[]).map((m) => {
      if (m.role === 'tool') return { ...m, content: '' };
      if (!Array.isArray(m.content)) return m;
      return {
        ...m,
        content: (m.content as Body[]).map((b) => (b.type === 'tool_result' ? { ...b, content: '' } : b)),
      };
    }),
  });
  return { compress: blank, observe: () => {} };
}

/**
 * What the gateway does: conversation state, history rewrites when the policy says they pay
 * (priced for this scenario's provider), the gateway's breakpoints where it manages them, and
 * the upstream's usage fed back into the state.
 */
export function gatewayEngine(s: Scenario, session: SessionContext, experiment: Experiment): SessionCompressor {
  const { total, intervalMs, history, toolRecords } = session;
  const unused = unusedToolGroups(aggregateToolGroups(toolRecords));
  const caching = s.clientBreakpoints || s.gatewayBreakpoints || s.pricing.rules.kind !== 'breakpoints';
  // A Claude client that marks nothing, with the gateway's breakpoints off: nothing is cached.
  const pricing: CachePricing = caching ? s.pricing : { ...s.pricing, rules: { kind: 'none' } };
  let state: ConversationState | undefined;
  return {
    compress(body, now) {
      const remaining = experiment.oracle ? total - 1 - Math.round(now / intervalMs) : undefined;
      const result = compressPayload(body, {
        conversation: {
          pricing,
          state,
          now,
          history,
          ...(remaining !== undefined ? { expectedRemaining: remaining } : {}),
          ...(experiment.riskBudget ? {} : { riskBudget: false }),
          ...(experiment.keepTurns !== undefined ? { keepTurns: experiment.keepTurns } : {}),
          unusedToolGroups: unused,
          ...(experiment.toolSurface ? {} : { toolSurface: false }),
        },
      });
      const outcome = result.conversation!;
      state = outcome.state;
      return s.gatewayBreakpoints && s.pricing.rules.kind === 'breakpoints'
        ? placeBreakpoints(result.body, outcome.anchorItem, outcome.readAnchorItem).body
        : result.body;
    },
    observe(usage) {
      if (state) state = withObservedUsage(state, { cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite });
    },
    toolRecord: () =>
      state ? { offered: state.offeredToolGroups ?? null, called: state.calledToolGroups ?? null } : undefined,
  };
}
