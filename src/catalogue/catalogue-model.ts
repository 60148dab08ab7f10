import type { Pricing, ProviderConfig } from '../config/gateway-config.js';

/** A model as the catalogue serves it: prices, limits and upstream routes. */
export interface CatalogueModel {
  id: string;
  author: string;
  active: boolean;
  created: number;
  ownedBy: string;
  pricing: Pricing;
  maxOutputTokens: number;
  /** Prompt tokens the model accepts, when configured (else the provider default, cache-pricing.ts). */
  contextWindow?: number | undefined;
  routes: Array<{ provider: ProviderConfig; upstreamModel: string }>;
  /** Not in the catalogue: a well-formed name forwarded to its provider at that provider's highest prices (unlisted-model.ts). */
  unlisted?: boolean;
}
