import type { TokenUsage } from '../../canonical/completion.js';
import { count, isRecord } from '../shared/usage.js';
import type { AnthropicUsage } from './wire.js';

/** Anthropic's input_tokens excludes cached tokens; the gateway's inputTokens includes them. */
export function convertAnthropicUsage(usage: AnthropicUsage | undefined): TokenUsage {
  const u: AnthropicUsage = isRecord(usage) ? usage : {};
  const cacheRead = count(u.cache_read_input_tokens);
  const cacheWrite = count(u.cache_creation_input_tokens);
  return {
    inputTokens: count(u.input_tokens) + cacheRead + cacheWrite,
    cachedInputTokens: cacheRead,
    cacheCreationInputTokens: cacheWrite,
    outputTokens: count(u.output_tokens),
    reasoningTokens: 0,
  };
}
