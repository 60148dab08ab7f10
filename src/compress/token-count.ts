// Token accounting for the report, through the tokenizer module (which memoises text counts:
// agents resend the same messages every turn). The strategies themselves never tokenize.
import { countRequestTokens, countTextTokens, tokenizerForModel, type CountableRequest, type TokenizerName } from '../tokenize/index.js';
import { STRATEGY_NAMES } from './pipeline.js';
import type { Conversation, RequestFormat } from './types.js';

export function tokenizerFor(body: Record<string, unknown>): TokenizerName {
  return tokenizerForModel(typeof body.model === 'string' ? body.model : '');
}

const TEXT_PARTS = new Set(['input_text', 'output_text']);

/**
 * The tokenizer module models chat and messages-style messages; responses items are mapped to
 * their chat equivalents so that all three shapes of one conversation count alike.
 */
function asChatMessage(item: unknown): unknown {
  if (!item || typeof item !== 'object') return item;
  const it = item as Record<string, unknown>;
  if (it.type === 'function_call_output') return { role: 'tool', content: asChatContent(it.output) };
  if (it.type === 'function_call') return { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: it.name, arguments: it.arguments } }] };
  if (typeof it.role === 'string') return { role: it.role, content: asChatContent(it.content) };
  return item;
}

function asChatContent(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((p: Record<string, unknown>) => (p && TEXT_PARTS.has(String(p.type)) ? { type: 'text', text: p.text } : p));
}

/** Input tokens of a body in any of the three shapes, as the tokenizer module counts them. */
export function countBodyTokens(body: Record<string, unknown>, format: RequestFormat, tokenizer: TokenizerName): number {
  if (format !== 'responses') return countRequestTokens(body as CountableRequest, tokenizer);
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as unknown[]);
  return countRequestTokens({ system: body.instructions, messages: input.map(asChatMessage), tools: body.tools as unknown[] | undefined }, tokenizer);
}

const itemsKey = (format: RequestFormat) => (format === 'responses' ? 'input' : 'messages');

/** Tokens of some messages (or responses items) alone, framing included, reply priming not. */
function countItems(items: unknown[], format: RequestFormat, tokenizer: TokenizerName): number {
  if (items.length === 0) return 0;
  const messages = format === 'responses' ? items.map(asChatMessage) : items;
  return countRequestTokens({ messages }, tokenizer) - countRequestTokens({}, tokenizer);
}

function countTools(tools: unknown, tokenizer: TokenizerName): number {
  return Array.isArray(tools) ? countRequestTokens({ tools }, tokenizer) - countRequestTokens({}, tokenizer) : 0;
}

/**
 * Tokens of `candidate`, a rewrite of `source` (counted `sourceTokens`) that shares every item
 * it did not change. The tokenizer module's count of a body is a sum over its messages (plus
 * system, tools and the reply priming), so only the replaced items and, when they changed, the
 * tools are counted again; the result equals a full count of `candidate`.
 */
export function countRewrittenBodyTokens(
  source: Record<string, unknown>,
  candidate: Record<string, unknown>,
  sourceTokens: number,
  format: RequestFormat,
  tokenizer: TokenizerName,
): number {
  if (candidate === source) return sourceTokens;
  const key = itemsKey(format);
  const before = source[key];
  const after = candidate[key];
  let total = sourceTokens;
  if (before !== after && Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    const removed: unknown[] = [];
    const added: unknown[] = [];
    for (let i = 0; i < before.length; i++) {
      if (before[i] === after[i]) continue;
      removed.push(before[i]);
      added.push(after[i]);
    }
    total += countItems(added, format, tokenizer) - countItems(removed, format, tokenizer);
  } else if (before !== after) {
    return countBodyTokens(candidate, format, tokenizer);
  }
  if (source.tools !== candidate.tools) total += countTools(candidate.tools, tokenizer) - countTools(source.tools, tokenizer);
  return total;
}

/**
 * Reverts every rewritten result that does not save a token (a CRLF that tokenizes like LF…)
 * and returns the strategies whose changes remain, in pipeline order. Judged per result,
 * from its own text only, so the decision is the same in every request that carries it.
 */
export function keepTokenSavingChanges(conversation: Conversation, tokenizer: TokenizerName): string[] {
  const used = new Set<string>();
  for (const r of conversation.results) {
    if (r.text === r.original) continue;
    if (countTextTokens(r.text, tokenizer) >= countTextTokens(r.original, tokenizer)) {
      r.text = r.original;
      r.changedBy.clear();
    } else for (const name of r.changedBy) used.add(name);
  }
  if (conversation.tools.some((t) => t.changed)) used.add('tool_surface_reduction');
  return STRATEGY_NAMES.filter((name) => used.has(name));
}
