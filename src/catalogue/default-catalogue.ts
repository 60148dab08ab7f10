import type { ModelConfig, ProviderConfig } from '../config/gateway-config.js';

/**
 * Built-in providers and models. Prices are the providers' public list prices in USD per
 * million tokens (standard tier, short context) as of 2026-11; a deployment overrides any of
 * them in its GATEWAY_CONFIG file. A provider whose key variable is unset still lists its
 * models; calling one gives a clear provider_error naming the missing variable.
 */
export const DEFAULT_PROVIDERS: ProviderConfig[] = [
  { id: 'openai', kind: 'openai', base_url: 'https://api.openai.com/v1', api_key_env: 'OPENAI_API_KEY' },
  { id: 'anthropic', kind: 'anthropic', base_url: 'https://api.anthropic.com/v1', api_key_env: 'ANTHROPIC_API_KEY' },
  {
    id: 'google',
    kind: 'gemini',
    base_url: 'https://generativelanguage.googleapis.com/v1beta',
    api_key_env: 'GEMINI_API_KEY',
  },
  { id: 'mistral', kind: 'openai', base_url: 'https://api.mistral.ai/v1', api_key_env: 'MISTRAL_API_KEY' },
  { id: 'local', kind: 'local' },
];

const CATALOGUE_CREATED = 1_762_000_000; // 2025-11-01, when these list prices were taken

function model(
  id: string,
  provider: string,
  price: [input: number, output: number, cachedInput?: number, cacheWrite?: number],
  maxOutputTokens: number,
): ModelConfig {
  const [input_per_mtok, output_per_mtok, cached_input_per_mtok, cache_write_per_mtok] = price;
  return {
    id,
    providers: [{ provider, model: id.slice(id.indexOf('/') + 1) }],
    pricing: {
      input_per_mtok,
      output_per_mtok,
      ...(cached_input_per_mtok !== undefined ? { cached_input_per_mtok } : {}),
      ...(cache_write_per_mtok !== undefined ? { cache_write_per_mtok } : {}),
    },
    active: true,
    max_output_tokens: maxOutputTokens,
    created: CATALOGUE_CREATED,
  };
}

export const DEFAULT_MODELS: ModelConfig[] = [
  model('openai/gpt-5', 'openai', [1.25, 10, 0.125], 128_000),
  model('openai/gpt-5-mini', 'openai', [0.25, 2, 0.025], 128_000),
  model('openai/gpt-5-nano', 'openai', [0.05, 0.4, 0.005], 128_000),
  model('openai/gpt-4.1', 'openai', [2, 8, 0.5], 32_768),
  model('openai/gpt-4.1-mini', 'openai', [0.4, 1.6, 0.1], 32_768),
  model('openai/gpt-4.1-nano', 'openai', [0.1, 0.4, 0.025], 32_768),
  model('openai/gpt-4o', 'openai', [2.5, 10, 1.25], 16_384),
  model('openai/gpt-4o-mini', 'openai', [0.15, 0.6, 0.075], 16_384),
  model('openai/o3', 'openai', [2, 8, 0.5], 100_000),
  model('openai/o4-mini', 'openai', [1.1, 4.4, 0.275], 100_000),
  model('anthropic/claude-opus-4-5', 'anthropic', [5, 25, 0.5, 6.25], 64_000),
  model('anthropic/claude-opus-4-1', 'anthropic', [15, 75, 1.5, 18.75], 32_000),
  model('anthropic/claude-sonnet-4-5', 'anthropic', [3, 15, 0.3, 3.75], 64_000),
  model('anthropic/claude-haiku-4-5', 'anthropic', [1, 5, 0.1, 1.25], 64_000),
  model('google/gemini-2.5-pro', 'google', [1.25, 10, 0.31], 65_536),
  model('google/gemini-2.5-flash', 'google', [0.3, 2.5, 0.075], 65_536),
  model('google/gemini-2.5-flash-lite', 'google', [0.1, 0.4, 0.025], 65_536),
  model('mistral/mistral-large-latest', 'mistral', [2, 6], 32_768),
  model('mistral/mistral-medium-latest', 'mistral', [0.4, 2], 32_768),
  model('mistral/mistral-small-latest', 'mistral', [0.1, 0.3], 32_768),
  model('mistral/codestral-latest', 'mistral', [0.3, 0.9], 32_768),
  model('local/echo', 'local', [0, 0], 4_096),
];
