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
