// PROVISIONAL API — the tokenizer helper owns this folder and may reshape internals, but keeps
// these exported names and signatures (other modules import them).
import { get_encoding, type Tiktoken } from 'tiktoken';

export const TOKENIZERS = ['cl100k_base', 'o200k_base'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

const encoders = new Map<TokenizerName, Tiktoken>();
function encoder(name: TokenizerName): Tiktoken {
  let enc = encoders.get(name);
  if (!enc) {
    enc = get_encoding(name);
    encoders.set(name, enc);
  }
  return enc;
}

/** Picks the tokenizer for a `{author}/{model}` id (or a bare model name). */
export function tokenizerForModel(model: string): TokenizerName {
  const name = model.includes('/') ? model.slice(model.indexOf('/') + 1) : model;
  if (/^(gpt-4(?!o)|gpt-3\.5|text-embedding-(ada|3))/.test(name)) return 'cl100k_base';
  return 'o200k_base';
}

/** Tokens of plain text, identical to tiktoken's `encode(text).length`. */
export function countTextTokens(text: string, tokenizer: TokenizerName): number {
  return encoder(tokenizer).encode_ordinary(text).length;
}

/** Prompt tokens of a chat or messages-style body (auto-detected), `system` included. */
export function countRequestTokens(
  body: { messages?: unknown[]; system?: unknown; tools?: unknown[] },
  tokenizer: TokenizerName,
): number {
  let total = 3;
  if (typeof body.system === 'string') total += 4 + countTextTokens(body.system, tokenizer);
  for (const message of body.messages ?? []) total += 4 + countTextTokens(JSON.stringify(message), tokenizer);
  if (body.tools?.length) total += countTextTokens(JSON.stringify(body.tools), tokenizer);
  return total;
}
