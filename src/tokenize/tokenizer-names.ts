/** The public BPE encodings the gateway counts with (spec 2.6: the `tokenizer` enum). */
export const TOKENIZERS = ['cl100k_base', 'o200k_base'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

export function isTokenizerName(value: unknown): value is TokenizerName {
  return typeof value === 'string' && (TOKENIZERS as readonly string[]).includes(value);
}
