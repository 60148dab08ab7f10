import type { TokenUsage } from '../../canonical/completion.js';
import { count, isRecord } from '../shared/usage.js';
import type { OpenAIUsage } from './wire.js';

/**
 * OpenAI itself reports no cache writes; OpenAI-compatible upstreams that do (Anthropic models
 * behind OpenRouter: `prompt_tokens_details.cache_write_tokens`; another gateway of this API:
 * `input_tokens_details.cache_creation_tokens`) count them inside `prompt_tokens`, as cached
 * reads are, so they are priced at the cache-write price (catalogue/cost.ts).
 */
export function convertOpenAIUsage(usage: OpenAIUsage | null | undefined): TokenUsage {
  const u: OpenAIUsage = isRecord(usage) ? usage : {};
  const prompt = isRecord(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const input = isRecord(u.input_tokens_details) ? u.input_tokens_details : {};
  return {
    inputTokens: count(u.prompt_tokens),
    cachedInputTokens: count(prompt.cached_tokens ?? input.cached_tokens),
    cacheCreationInputTokens: count(
      prompt.cache_write_tokens ?? prompt.cache_creation_tokens ?? input.cache_creation_tokens,
    ),
    outputTokens: count(u.completion_tokens),
    reasoningTokens: count(u.completion_tokens_details?.reasoning_tokens),
  };
}
