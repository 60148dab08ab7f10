/**
 * Every kind of provider the gateway has an adapter for, declared once: the configuration
 * schema, the catalogue's cache defaults and everything that names a kind derive from this list,
 * and providers/registry.ts is checked against it at compile time (one adapter per kind, with that
 * kind). On the lowest floor because config/ sits below the providers that implement the kinds.
 * A new provider: its name here, its folder in src/providers/, its line in the registry and its
 * cache defaults in catalogue/cache-pricing.ts (the compiler asks for the last two).
 */
export const PROVIDER_KINDS = ['openai', 'anthropic', 'gemini', 'local'] as const;

export type ProviderKind = (typeof PROVIDER_KINDS)[number];
