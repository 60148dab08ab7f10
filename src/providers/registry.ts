import { anthropicAdapter } from './anthropic/index.js';
import { geminiAdapter } from './gemini/index.js';
import { localAdapter } from './local/index.js';
import { openaiAdapter } from './openai/index.js';
import type { NativeWire, ProviderAdapter, ProviderKind, UpstreamTarget, WireFormat } from './types.js';

/**
 * The only place provider kinds meet. A new provider is one line here plus its folder; what it
 * speaks natively is its adapter's `native` (no surface names a provider kind).
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

/** Whether `kind` names a registered provider (the catalogue refuses a provider of any other kind). */
export function isProviderKind(kind: string): kind is ProviderKind {
  return Object.hasOwn(adapters, kind);
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
