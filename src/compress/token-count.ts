// Token accounting for the report, through the tokenizer module (which memoises text counts:
// agents resend the same messages every turn). The strategies themselves never tokenize.
import {
  countMessageTokens,
  countRequestTokens,
  tokenizerForModel,
  type CountableRequest,
  type TokenizerName,
} from '../tokenize/index.js';
import { asChatMessage } from './formats/responses-items.js';
import { STRATEGY_NAMES } from './pipeline.js';
import { TOOL_SURFACE_DECISION } from './tool-surface.js';
import type { Conversation, RequestFormat } from './types.js';

export function tokenizerFor(body: Record<string, unknown>): TokenizerName {
  return tokenizerForModel(typeof body.model === 'string' ? body.model : '');
}

/** A body's input tokens, and those of each item of its `messages` / `input` array. */
export interface BodyCount {
  total: number;
  /** Per item, framing included; undefined when the items are not an array. */
  items: number[] | undefined;
}

const itemsKey = (format: RequestFormat) => (format === 'responses' ? 'input' : 'messages');

/** Tokens of one message (or responses item), framing included. */
function countItem(item: unknown, format: RequestFormat, tokenizer: TokenizerName): number {
  return countMessageTokens(format === 'responses' ? asChatMessage(item) : item, tokenizer);
}

/**
 * Input tokens of a body in any of the three shapes, as the tokenizer module counts them. The
 * module's count of a body is its system, tools and reply priming plus a sum over its
 * messages, so the items are counted one by one and their counts kept: the rewritten body is
 * then counted from them (`countRewrittenBodyTokens`) without looking the originals up again.
 */
export function countSourceTokens(
  body: Record<string, unknown>,
  format: RequestFormat,
  tokenizer: TokenizerName,
): BodyCount {
  const responses = format === 'responses';
  const raw =
    responses && typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body[itemsKey(format)];
  const rest: CountableRequest = {
    system: responses ? body.instructions : body.system,
    tools: body.tools as unknown[] | undefined,
  };
  let total = countRequestTokens(rest, tokenizer);
  if (!Array.isArray(raw)) return { total, items: undefined };
  const items = new Array<number>(raw.length);
  for (let i = 0; i < raw.length; i++) total += items[i] = countItem(raw[i], format, tokenizer);
  return { total, items };
}

/** Input tokens of a body in any of the three shapes (the total of `countSourceTokens`). */
export function countBodyTokens(
  body: Record<string, unknown>,
  format: RequestFormat,
  tokenizer: TokenizerName,
): number {
  return countSourceTokens(body, format, tokenizer).total;
}

function countTools(tools: unknown, tokenizer: TokenizerName): number {
  return Array.isArray(tools) ? countRequestTokens({ tools }, tokenizer) - countRequestTokens({}, tokenizer) : 0;
}

/**
 * Tokens of `candidate`, a rewrite of `source` (counted as `source`) that shares every item it
 * did not change: the source's total minus the replaced items' counts plus their replacements',
 * and the tools again when they changed. Equals a full count of `candidate`.
 */
export function countRewrittenBodyTokens(
  source: Record<string, unknown>,
  candidate: Record<string, unknown>,
  counted: BodyCount,
  format: RequestFormat,
  tokenizer: TokenizerName,
): number {
  if (candidate === source) return counted.total;
  const key = itemsKey(format);
  const before = source[key];
  const after = candidate[key];
  let total = counted.total;
  if (before !== after) {
    const items = counted.items;
    if (!items || !Array.isArray(before) || !Array.isArray(after) || before.length !== after.length)
      return countBodyTokens(candidate, format, tokenizer);
    for (let i = 0; i < before.length; i++) {
      if (before[i] !== after[i]) total += countItem(after[i], format, tokenizer) - items[i]!;
    }
  }
  if (source.tools !== candidate.tools)
    total += countTools(candidate.tools, tokenizer) - countTools(source.tools, tokenizer);
  return total;
}

/** The strategies that changed something, in pipeline order. */
export function appliedStrategies(conversation: Conversation): string[] {
  const used = new Set<string>();
  for (const r of conversation.results) {
    for (const name of r.changedBy) used.add(name);
    // A finished run's details dropped from its header (formats/output-envelope.ts).
    if (r.editable && r.envelope?.receivedPrefix !== undefined) used.add('tool_result_trimming');
  }
  if (conversation.tools.some((t) => t.changed && !t.dropped)) used.add('tool_surface_reduction');
  if (conversation.tools.some((t) => t.dropped)) used.add(TOOL_SURFACE_DECISION);
  return STRATEGY_NAMES.filter((name) => used.has(name));
}
