import { anthropicAdapter } from './anthropic/index.js';
import { geminiAdapter } from './gemini/index.js';
import { localAdapter } from './local/index.js';
import { openaiAdapter } from './openai/index.js';
import type { ProviderAdapter, ProviderKind } from './types.js';

/**
 * The only place provider kinds meet their adapters. A new provider is one line here plus its
 * folder and its name in canonical/provider-kinds.ts: the compiler refuses a kind of that list
 * without an adapter here, and a key that is not in it (test/providers/registry.test.ts checks
 * each adapter is filed under its own kind).
 */
export const adapters: Record<ProviderKind, ProviderAdapter> = {
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  local: localAdapter,
};

export function getAdapter(kind: ProviderKind): ProviderAdapter {
  const adapter = adapters[kind];
  if (!adapter) throw new Error(`unknown provider kind: ${String(kind)}`);
  return adapter;
}
