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

/**
 * The usage so far with a `message_delta`'s usage applied: its output_tokens is cumulative, and
 * newer API versions may also restate the input counts.
 */
export function withLateUsage(usage: TokenUsage | undefined, delta: AnthropicUsage): TokenUsage {
  const late = convertAnthropicUsage(delta);
  const base = usage ?? convertAnthropicUsage(undefined);
  return {
    ...base,
    outputTokens: late.outputTokens,
    ...(typeof delta.input_tokens === 'number'
      ? {
          inputTokens: late.inputTokens,
          cachedInputTokens: late.cachedInputTokens,
          cacheCreationInputTokens: late.cacheCreationInputTokens,
        }
      : {}),
  };
}
