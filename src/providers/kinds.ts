/**
 * The provider kinds there are adapters for: the built-in ones (src/providers/registry.ts holds
 * exactly these, the type checker sees to it), and any registered there at run time. Apart from
 * the registry so that the catalogue can check a configured kind without loading every adapter.
 */
export const BUILT_IN_KINDS = ['openai', 'anthropic', 'gemini', 'local'] as const;

export type ProviderKind = (typeof BUILT_IN_KINDS)[number];

const registered = new Set<string>(BUILT_IN_KINDS);

/** Whether an adapter is registered for `kind` (the catalogue refuses a provider of any other kind). */
export function isProviderKind(kind: string): kind is ProviderKind {
  return registered.has(kind);
}

/** Called by the registry only, when a provider is added or removed at run time. */
export function markProviderKind(kind: string, present: boolean): void {
  if (present) registered.add(kind);
  else if (!(BUILT_IN_KINDS as readonly string[]).includes(kind)) registered.delete(kind);
}
