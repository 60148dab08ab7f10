import type { TokenUsage } from '../../canonical/completion.js';
import { count, isRecord } from '../shared/usage.js';
import type { OpenAIUsage } from './wire.js';

export function convertOpenAIUsage(usage: OpenAIUsage | null | undefined): TokenUsage {
  const u: OpenAIUsage = isRecord(usage) ? usage : {};
  return {
    inputTokens: count(u.prompt_tokens),
    cachedInputTokens: count(u.prompt_tokens_details?.cached_tokens),
    cacheCreationInputTokens: 0,
    outputTokens: count(u.completion_tokens),
    reasoningTokens: count(u.completion_tokens_details?.reasoning_tokens),
  };
}
