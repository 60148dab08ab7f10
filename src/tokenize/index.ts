// The tokenizer module's public API. Other modules import from here only; the files behind it
// each hold one concern (mapping, caching, per-format accounting).
export { TOKENIZERS, isTokenizerName, type TokenizerName } from './tokenizer-names.js';
export { tokenizerForModel } from './model-tokenizer.js';
export {
  countTextTokens,
  clearTokenCache,
  clearPieceMemos,
  tokenCacheStats,
  TEXT_CACHE_MAX_CHARS,
  TEXT_CACHE_MAX_ENTRY_CHARS,
} from './count-text.js';
export { countMessageTokens, countRequestTokens, type CountableRequest } from './count-request.js';
export { detectMessageFormat, type MessageFormat } from './message-format.js';
export type { TextTokenCacheStats } from './text-token-cache.js';
export { preloadEncoders } from './count-text.js';
