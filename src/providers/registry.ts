import { anthropicAdapter } from './anthropic/index.js';
import { geminiAdapter } from './gemini/index.js';
import { localAdapter } from './local/index.js';
import { openaiAdapter } from './openai/index.js';
import type { NativeWire, ProviderAdapter, ProviderKind, UpstreamTarget, WireFormat } from './types.js';
import { markProviderKind } from './kinds.js';

/**
 * The only place provider kinds meet their adapters. A built-in provider is one line here plus
 * its folder and its name in canonical/provider-kinds.ts (the compiler refuses a kind of that list
 * without an adapter here); a provider added at run time (registerProvider) needs neither. What a
 * provider speaks natively is its adapter's `native` (no surface names a provider kind).
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

/**
 * Adds a provider at run time (a provider folder outside src/, e.g. a test's): its adapter under
 * its kind, which the catalogue then accepts in the config. Returns what removes it again.
 */
export function registerProvider(adapter: Omit<ProviderAdapter, 'kind'> & { readonly kind: string }): () => void {
  const table = adapters as Record<string, ProviderAdapter>;
  if (table[adapter.kind]) throw new Error(`provider kind ${adapter.kind} is registered already`);
  table[adapter.kind] = adapter as ProviderAdapter;
  markProviderKind(adapter.kind, true);
  return () => {
    delete table[adapter.kind];
    markProviderKind(adapter.kind, false);
  };
}

/** The wire format's native call of `adapter` when it accepts `format` for `target`; else undefined. */
export function nativeWireOf(
  adapter: ProviderAdapter,
  format: WireFormat,
  target: UpstreamTarget,
): NativeWire | undefined {
  const wire = adapter.native?.[format];
  return wire?.accepts(target) ? wire : undefined;
}

/** Whether `target` takes `format` as it is (its provider's adapter accepts it for that target). */
export function speaksNatively(target: UpstreamTarget, format: WireFormat): boolean {
  const adapter = adapters[target.kind];
  return adapter !== undefined && nativeWireOf(adapter, format, target) !== undefined;
}
