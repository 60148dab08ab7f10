import type { ModelConfig, ProviderConfig } from '../config/gateway-config.js';

/**
 * Built-in providers and models. Prices are the providers' public list prices in USD per
 * million tokens (standard tier, short context); a deployment overrides any of them in its
 * GATEWAY_CONFIG file. A provider whose key variable is unset is not routable: its models are
 * not listed by GET /v1/models, and calling one gives 400 provider_not_supported.
 *
 * Sources, read 2026-11-25 (the dates are those of the stored snapshots; docs/catalogue.md):
 * - Anthropic: platform.claude.com/docs/en/about-claude/pricing and each model's overview page
 *   (snapshots of 2026-09 to 2026-10-24, after the 2026-10-07 Sonnet 5.5 cache-read cut).
 *   `cache_write_per_mtok` is the 5-minute write; `cached_input_per_mtok` the cache hit.
 * - OpenAI: developers.openai.com/api/docs/models and the model pages (snapshots 2026-09 to
 *   2026-11). Cache writes are priced only where the model page lists them (30-minute retention).
 * Re-checked 2026-11-25 (issue 18): added GPT-6 Luna, GPT-5.6 cache writes (1.25x input),
 * Claude Mythos 5 and 5.1; Claude Opus 4.1 is retired on Anthropic's API and listed inactive.
 * Long-context surcharges (OpenAI above 272K input tokens, Claude Haiku 5.5 above 100K) are not
 * modelled: the catalogue has one price per token kind. Claude Haiku 5.5 is listed at its
 * long-prompt band, so spend and budget ceilings never under-count; short prompts cost 1/5 of it.
 */
export const DEFAULT_PROVIDERS: ProviderConfig[] = [
  {
    id: 'openai',
    kind: 'openai',
    base_url: 'https://api.openai.com/v1',
    api_key_env: 'OPENAI_API_KEY',
    responses_api: true,
  },
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
  released?: string,
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
    created: released ? Math.floor(Date.parse(`${released}T00:00:00Z`) / 1000) : CATALOGUE_CREATED,
  };
}

export const DEFAULT_MODELS: ModelConfig[] = [
  // OpenAI, newest first. A model without a listed cached-input price is billed at the input price.
  model('openai/gpt-6.2-astra', 'openai', [8, 40], 128_000),
  model('openai/gpt-6.2-sol', 'openai', [2, 10, 0.1, 2.5], 128_000),
  model('openai/gpt-6.1-sol', 'openai', [2, 10, 0.1, 2.5], 128_000, '2026-09-29'),
  model('openai/gpt-6.1-terra', 'openai', [1, 5], 128_000, '2026-09-29'),
  model('openai/gpt-6-astra', 'openai', [10, 50, 1, 12.5], 128_000, '2026-09-03'),
  model('openai/gpt-6-sol', 'openai', [2, 10, 0.2, 2.5], 128_000, '2026-09-22'),
  model('openai/gpt-6-luna', 'openai', [0.1, 0.5, 0.01, 0.125], 128_000, '2026-09-22'),
  // GPT-5.6: cache writes at 1.25x the input price (model pages).
  model('openai/gpt-5.6-sol', 'openai', [4, 20, 0.4, 5], 128_000, '2026-06-26'),
  model('openai/gpt-5.6-terra', 'openai', [2, 12, 0.2, 2.5], 128_000, '2026-06-26'),
  model('openai/gpt-5.6-luna', 'openai', [0.2, 1.2, 0.02, 0.25], 128_000, '2026-06-26'),
  model('openai/gpt-5.5', 'openai', [5, 30, 0.5], 128_000),
  model('openai/gpt-5.4', 'openai', [2.5, 15, 0.25], 128_000),
  model('openai/gpt-5.4-mini', 'openai', [0.75, 4.5, 0.075], 128_000),
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
  // Anthropic, newest first: [input, output, cache hit, 5-minute cache write].
  model('anthropic/claude-fable-5-1', 'anthropic', [10, 50, 0.25, 12.5], 128_000),
  model('anthropic/claude-fable-5', 'anthropic', [10, 50, 1, 12.5], 128_000),
  // Mythos: limited availability, priced as the Fable of the same version.
  model('anthropic/claude-mythos-5-1', 'anthropic', [10, 50, 0.25, 12.5], 128_000),
  model('anthropic/claude-mythos-5', 'anthropic', [10, 50, 1, 12.5], 128_000),
  model('anthropic/claude-opus-5-5', 'anthropic', [4, 20, 0.2, 5], 128_000),
  model('anthropic/claude-opus-5', 'anthropic', [5, 25, 0.5, 6.25], 128_000, '2026-07-24'),
  model('anthropic/claude-opus-4-8', 'anthropic', [5, 25, 0.5, 6.25], 128_000, '2026-05-28'),
  model('anthropic/claude-opus-4-7', 'anthropic', [5, 25, 0.5, 6.25], 128_000),
  model('anthropic/claude-opus-4-6', 'anthropic', [5, 25, 0.5, 6.25], 128_000),
  model('anthropic/claude-sonnet-5-5', 'anthropic', [2, 10, 0.1, 2.5], 128_000),
  model('anthropic/claude-sonnet-5', 'anthropic', [2, 10, 0.2, 2.5], 128_000, '2026-06-30'),
  model('anthropic/claude-sonnet-4-6', 'anthropic', [3, 15, 0.3, 3.75], 64_000),
  model('anthropic/claude-haiku-5-5', 'anthropic', [0.5, 2.5, 0.05, 0.625], 128_000, '2026-10-07'),
  model('anthropic/claude-opus-4-5', 'anthropic', [5, 25, 0.5, 6.25], 64_000),
  // Retired on Anthropic's API (still served on Bedrock and Vertex): listed for its price, inactive.
  { ...model('anthropic/claude-opus-4-1', 'anthropic', [15, 75, 1.5, 18.75], 32_000), active: false },
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

/**
 * Names clients send for a catalogue model that are not its id: the providers' own short
 * aliases, which move to the newest model of a family (Anthropic's `opus`, `sonnet`, `haiku`,
 * `fable`, as Claude Code resolves them; OpenAI's documented `gpt-5.6`). Dated snapshots,
 * `-latest`, Bedrock/Vertex spellings and `[1m]` are handled by the resolver, not listed here.
 */
export const DEFAULT_ALIASES: Record<string, string> = {
  opus: 'anthropic/claude-opus-5-5',
  sonnet: 'anthropic/claude-sonnet-5-5',
  haiku: 'anthropic/claude-haiku-5-5',
  fable: 'anthropic/claude-fable-5-1',
  'gpt-5.6': 'openai/gpt-5.6-sol',
};

/**
 * The shape of each built-in provider's model names (lower-cased), for names the catalogue does
 * not list: a well-formed one is forwarded to its provider (unlisted-model.ts), anything else
 * stays a 404. Providers a deployment adds accept any model-name characters.
 */
export const PROVIDER_MODEL_FAMILIES: Readonly<Record<string, RegExp>> = {
  anthropic: /^claude-[a-z0-9][a-z0-9.@:-]*$/,
  openai: /^(?:gpt-|chatgpt-|codex-|computer-use-|o\d)[a-z0-9._:-]*$/,
  google: /^(?:gemini|gemma)-[a-z0-9._-]+$/,
  mistral: /^(?:mistral|codestral|devstral|magistral|ministral|pixtral|voxtral|open-mistral|open-mixtral)[a-z0-9._-]*$/,
};
