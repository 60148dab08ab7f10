import { get_encoding, type Tiktoken } from 'tiktoken';
import type { TokenizerName } from './tokenizer-names.js';

// Loading a vocabulary into WASM takes a few hundred milliseconds and a few MB, so each encoder
// is built on first use and kept for the life of the process (never `free()`d: it is shared).
const encoders = new Map<TokenizerName, Tiktoken>();

export function encoderFor(name: TokenizerName): Tiktoken {
  let encoder = encoders.get(name);
  if (!encoder) {
    encoder = get_encoding(name);
    encoders.set(name, encoder);
  }
  return encoder;
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
 * Loads every encoder now. Loading is synchronous WASM work (~0.4 s for both, ~70 MB), and on
 * first use it would stall the event loop under a live request; `gateway serve` calls this
 * before it starts listening.
 */
export function preloadEncoders(names: readonly TokenizerName[]): void {
  for (const name of names) encoderFor(name);
}
