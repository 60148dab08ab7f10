import type { TokenUsage } from '../../canonical/completion.js';
import { count, isRecord } from '../shared/usage.js';
import type { GeminiUsageMetadata } from './wire.js';

/** Thinking tokens are billed as output, so they count as output and as reasoning. */
export function convertGeminiUsage(metadata: GeminiUsageMetadata | undefined): TokenUsage {
  const m: GeminiUsageMetadata = isRecord(metadata) ? metadata : {};
  const thoughts = count(m.thoughtsTokenCount);
  return {
    inputTokens: count(m.promptTokenCount),
    cachedInputTokens: count(m.cachedContentTokenCount),
    cacheCreationInputTokens: 0,
    outputTokens: count(m.candidatesTokenCount) + thoughts,
    reasoningTokens: thoughts,
  };
}
