import { createRequire } from 'node:module';
import type { Tiktoken } from 'tiktoken';
import type { TokenizerName } from './tokenizer-names.js';

// tiktoken compiles its WASM module on import (~20 MB resident) and each vocabulary costs ~35 MB
// more: a gateway that never counts tokens (keys without a ceiling, upstreams that report usage)
// should pay for neither. Its CommonJS build lets the first use load it synchronously.
const requireModule = createRequire(import.meta.url);
let tiktoken: typeof import('tiktoken') | undefined;

// Building an encoder takes a few hundred milliseconds, so each is built on first use and kept
// for the life of the process (never `free()`d: it is shared).
const encoders = new Map<TokenizerName, Tiktoken>();

export function encoderFor(name: TokenizerName): Tiktoken {
  let encoder = encoders.get(name);
  if (!encoder) {
    tiktoken ??= requireModule('tiktoken') as typeof import('tiktoken');
    encoder = tiktoken.get_encoding(name);
    encoders.set(name, encoder);
  }
  return encoder;
}

export function loadedEncoders(): TokenizerName[] {
  return [...encoders.keys()];
}

/**
 * Token count straight from tiktoken, no cache. `encode_ordinary` treats text such as
 * `<|endoftext|>` as plain text: user content must never be able to inject (or trip on) a
 * special token, and `encode` would throw on it.
 */
export function encodeCount(text: string, name: TokenizerName): number {
  return encoderFor(name).encode_ordinary(text).length;
}

/**
 * Loads encoders now. Loading is synchronous WASM work (~0.2 s and ~35 MB each) that would
 * otherwise stall the event loop under the first request that counts tokens; `gateway serve`
 * calls this before it starts listening when GATEWAY_PRELOAD_TOKENIZERS asks for it.
 */
export function preloadEncoders(names: readonly TokenizerName[]): void {
  for (const name of names) encoderFor(name);
}
