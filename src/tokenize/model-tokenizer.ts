import type { TokenizerName } from './tokenizer-names.js';

// OpenAI's own table (tiktoken's model_to_encoding), extended to the model families released
// since: everything from GPT-4o on, and the o-series reasoning models, use o200k_base.
const O200K_MODELS = /^(chatgpt-4o|gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o\d+|codex)(?![a-z0-9])/;
const CL100K_MODELS = /^(gpt-4(?![o.\d])|gpt-3\.5|gpt-35|text-embedding-(ada|3))/;

/**
 * Picks the tokenizer for a `{author}/{model}` id (or a bare model name).
 *
 * The model name decides first, whatever the author, so OpenAI models served through other
 * authors (`azure/gpt-4o`) still get their real encoding. Other OpenAI models default to
 * o200k_base, the encoding of every current OpenAI family. A bare name that matches no OpenAI
 * family is treated like another author's model (messages-style bodies name `claude-…` bare).
 *
 * Every other author (anthropic, google, mistral, meta, local, …) gets cl100k_base. None of
 * their tokenizers is public as a tiktoken encoding, so any choice is an estimate, and for
 * budgeting an under-count is the costly error. cl100k_base's smaller vocabulary gives the
 * higher of the two counts on almost all text, which is the nearer side for tokenizers
 * reported to count more than GPT-4 does (Claude, Llama 2, Mistral's 32k vocabularies); and
 * Llama 3's vocabulary starts with cl100k_base's 100k tokens. See docs/tokenizers.md.
 */
export function tokenizerForModel(model: string): TokenizerName {
  const slash = model.indexOf('/');
  const author = slash === -1 ? '' : model.slice(0, slash).toLowerCase();
  const name = model.slice(slash + 1).toLowerCase();
  if (O200K_MODELS.test(name)) return 'o200k_base';
  if (CL100K_MODELS.test(name)) return 'cl100k_base';
  return author === 'openai' ? 'o200k_base' : 'cl100k_base';
}
