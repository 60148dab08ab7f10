import { PROVIDER_KINDS, type ProviderKind } from '../canonical/provider-kinds.js';

/**
 * The provider kinds there are adapters for: the built-in ones (canonical/provider-kinds.ts,
 * which src/providers/registry.ts holds exactly, the type checker sees to it), and any registered
 * there at run time. Apart from the registry so that the catalogue can check a configured kind
 * without loading every adapter.
 */
const registered = new Set<string>(PROVIDER_KINDS);

/** Whether an adapter is registered for `kind` (the catalogue refuses a provider of any other kind). */
export function isProviderKind(kind: string): kind is ProviderKind {
  return registered.has(kind);
}

/** Called by the registry only, when a provider is added or removed at run time. */
export function markProviderKind(kind: string, present: boolean): void {
  if (present) registered.add(kind);
  else if (!(PROVIDER_KINDS as readonly string[]).includes(kind)) registered.delete(kind);
}
