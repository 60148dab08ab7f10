import type { Pricing, ProviderConfig } from '../config/gateway-config.js';
import type { CatalogueModel } from './catalogue-model.js';
import { PROVIDER_MODEL_FAMILIES } from './default-catalogue.js';

/**
 * A model name the catalogue does not list, for a provider the deployment has configured: the
 * name is forwarded to that provider as sent instead of answering 404, so a client that
 * defaults to a model released after this catalogue (Claude Code and Codex move to the newest
 * family the day it ships) keeps working. Priced conservatively, never at $0: each price is the
 * highest of that provider's known models (so a key's ceiling holds whatever the new model
 * costs), and the usage row says the price was not the model's own (`model_unlisted`).
 *
 * Well-formed means `{provider id}/{name}` where the provider exists, is not `local`, has its
 * key variable set (or needs none), and the name has a model name's characters and, for the
 * built-in providers, the shape of that provider's model names (`claude-…` for Anthropic,
 * `gpt-…`/`o…` for OpenAI, …): a typo such as `anthropic/gpt-5` or `anthropic/sonet` stays a 404.
 */

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.:@-]{0,127}$/;

export interface UnlistedContext {
  providers: ReadonlyMap<string, ProviderConfig>;
  /** The provider's key as the catalogue resolves it (its `api_key_file` or `api_key_env`). */
  apiKeyOf: (provider: ProviderConfig) => string | undefined;
}

export function isConfigured(provider: ProviderConfig, apiKeyOf: UnlistedContext['apiKeyOf']): boolean {
  if (provider.kind === 'local') return false;
  return (!provider.api_key_env && !provider.api_key_file) || Boolean(apiKeyOf(provider));
}

/** The catalogue model an unlisted but well-formed name stands for, or undefined. */
export function unlistedModel(
  id: string,
  context: UnlistedContext,
  ceiling: (providerId: string) => Ceiling | undefined,
): CatalogueModel | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0) return undefined;
  const providerId = id.slice(0, slash);
  const name = id.slice(slash + 1).trim();
  const provider = context.providers.get(providerId);
  if (!provider || !NAME.test(name) || !isConfigured(provider, context.apiKeyOf)) return undefined;
  const family = PROVIDER_MODEL_FAMILIES[providerId];
  if (family && !family.test(name.toLowerCase())) return undefined;
  const known = ceiling(providerId);
  if (!known) return undefined;
  return {
    id: `${providerId}/${name}`,
    author: providerId,
    active: true,
    created: 0,
    ownedBy: providerId,
    pricing: known.pricing,
    maxOutputTokens: known.maxOutputTokens,
    routes: [{ provider, upstreamModel: name }],
    unlisted: true,
  };
}

export interface Ceiling {
  pricing: Pricing;
  maxOutputTokens: number;
}

/**
 * The highest price of each kind among the active models routed to `providerId` (a retired
 * model's price is no guide to a new one); when that provider has no priced model, the highest
 * of the whole catalogue. Undefined only when nothing in the
 * catalogue has a price (then nothing can be forwarded at a price that holds a ceiling).
 */
export function providerCeiling(providerId: string, models: Iterable<CatalogueModel>): Ceiling | undefined {
  const all = [...models].filter((model) => model.pricing.output_per_mtok > 0 || model.pricing.input_per_mtok > 0);
  const own = all.filter((model) => model.routes.some((route) => route.provider.id === providerId));
  const basis = own.length > 0 ? own : all;
  if (basis.length === 0) return undefined;
  const max = (read: (pricing: Pricing) => number | undefined) =>
    Math.max(...basis.map((model) => read(model.pricing) ?? 0));
  const pricing: Pricing = {
    input_per_mtok: max((p) => p.input_per_mtok),
    output_per_mtok: max((p) => p.output_per_mtok),
  };
  // A model without a cache price is billed its input price for cache reads and writes.
  const cached = max((p) => p.cached_input_per_mtok ?? p.input_per_mtok);
  const write = max((p) => p.cache_write_per_mtok ?? p.input_per_mtok);
  if (cached > 0) pricing.cached_input_per_mtok = cached;
  if (write > 0) pricing.cache_write_per_mtok = write;
  return { pricing, maxOutputTokens: Math.max(...basis.map((model) => model.maxOutputTokens)) };
}
