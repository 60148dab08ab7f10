import { Catalogue } from '../catalogue/catalogue.js';
import { loadGatewayConfig } from '../config/gateway-config.js';
import type { Settings } from '../config/settings.js';
import { cachePricingOfModel } from '../catalogue/cache-pricing.js';
import type { OpencodeModel } from './client-profiles.js';

/** The models of the catalogue this deployment serves: the built-in one merged with GATEWAY_CONFIG's. */
export function deploymentOpencodeModels(settings: Settings): Record<string, OpencodeModel> {
  return opencodeModels(new Catalogue(loadGatewayConfig(settings.configFile)));
}

/**
 * The catalogue's Anthropic models as opencode's `anthropic` provider lists them: by the bare
 * name opencode sends (the gateway's /v1/messages reads a bare name as Anthropic's), each with
 * the context window and output limit opencode compacts by and the prices its cost readout
 * multiplies (USD per million tokens, the catalogue's unit). Without these opencode falls back
 * on its own bundled list, which does not know the gateway's models or prices.
 */
export function opencodeModels(catalogue: Catalogue): Record<string, OpencodeModel> {
  const models: Record<string, OpencodeModel> = {};
  for (const model of catalogue.active()) {
    if (model.author !== 'anthropic') continue;
    // Read and write prices as metering charges them (the provider's defaults where the catalogue lists none).
    const cache = cachePricingOfModel(model);
    const name = model.id.slice(model.id.indexOf('/') + 1);
    models[name] = {
      name,
      limit: { context: cache.contextWindow, output: model.maxOutputTokens },
      cost: {
        input: model.pricing.input_per_mtok,
        output: model.pricing.output_per_mtok,
        cache_read: dollars(cache.cacheReadPerMtok),
        cache_write: dollars(cache.cacheWritePerMtok),
      },
    };
  }
  return models;
}

/** A derived price without the float noise of its ratio (0.1 × 7 is 0.7000000000000001). */
function dollars(perMillion: number): number {
  return Math.round(perMillion * 1e9) / 1e9;
}
