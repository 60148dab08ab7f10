// Token accounting for the report. Counting is the costliest step of a compression (the
// strategies themselves never tokenize), and agents resend the same messages every turn, so
// counts are memoised per message; the sum matches `countRequestTokens` on the whole body.
import { countRequestTokens, countTextTokens, tokenizerForModel, type TokenizerName } from '../tokenize/index.js';
import { BoundedCache, registerCache } from './cache.js';
import type { RequestFormat } from './types.js';

const perItem = registerCache(new BoundedCache<number>(128 * 1024 * 1024));
const EMPTY: Record<TokenizerName, number | undefined> = { cl100k_base: undefined, o200k_base: undefined };

function baseTokens(tokenizer: TokenizerName): number {
  return (EMPTY[tokenizer] ??= countRequestTokens({ messages: [] }, tokenizer));
}

function memo(key: string, count: () => number): number {
  let n = perItem.get(key);
  if (n === undefined) {
    n = count();
    perItem.set(key, n, 8);
  }
  return n;
}

function itemTokens(item: unknown, tokenizer: TokenizerName): number {
  return memo(`${tokenizer}|m|${JSON.stringify(item)}`, () => countRequestTokens({ messages: [item] }, tokenizer) - baseTokens(tokenizer));
}

export function tokenizerFor(body: Record<string, unknown>): TokenizerName {
  return tokenizerForModel(typeof body.model === 'string' ? body.model : '');
}

/** Input tokens of a body in any of the three shapes, as the tokenizer module counts them. */
export function countBodyTokens(body: Record<string, unknown>, format: RequestFormat, tokenizer: TokenizerName): number {
  const items: unknown[] = format === 'responses' ? (typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as unknown[])) : (body.messages as unknown[]);
  const system = format === 'responses' ? body.instructions : body.system;
  let total = baseTokens(tokenizer);
  if (typeof system === 'string') total += memo(`${tokenizer}|s|${system}`, () => 4 + countTextTokens(system, tokenizer));
  else if (Array.isArray(system)) total += itemTokens({ role: 'system', content: system }, tokenizer);
  for (const item of items) total += itemTokens(item, tokenizer);
  const tools = body.tools as unknown[] | undefined;
  if (Array.isArray(tools) && tools.length > 0) {
    total += memo(`${tokenizer}|t|${JSON.stringify(tools)}`, () => countRequestTokens({ tools }, tokenizer) - baseTokens(tokenizer));
  }
  return total;
}
