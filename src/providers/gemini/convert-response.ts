import type { ProviderCompletion } from '../../canonical/completion.js';
import { malformed } from '../shared/upstream-errors.js';
import { isRecord } from '../shared/usage.js';
import { readParts } from './convert-parts.js';
import { convertGeminiUsage } from './convert-usage.js';
import { mapGeminiFinishReason } from './map-finish-reason.js';
import type { GeminiResponse } from './wire.js';

export function convertGeminiResponse(body: unknown): ProviderCompletion {
  if (!isRecord(body)) throw malformed('gemini response is not a JSON object');
  const response = body as GeminiResponse;
  const candidate = Array.isArray(response.candidates) ? response.candidates[0] : undefined;
  if (!candidate) {
    // A prompt blocked by safety settings comes back with no candidates at all.
    if (response.promptFeedback?.blockReason) {
      return {
        message: { role: 'assistant', content: '' },
        finishReason: 'content_filter',
        usage: convertGeminiUsage(response.usageMetadata),
      };
    }
    throw malformed('gemini response has no candidates');
  }
  const { text, sawText, toolCalls } = readParts(candidate.content?.parts);
  const completion: ProviderCompletion = {
    message: {
      role: 'assistant',
      content: sawText || toolCalls.length === 0 ? text : null,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    finishReason: mapGeminiFinishReason(candidate.finishReason, toolCalls.length > 0),
    usage: convertGeminiUsage(response.usageMetadata),
  };
  if (typeof response.responseId === 'string') completion.upstreamId = response.responseId;
  if (typeof response.modelVersion === 'string') completion.upstreamModel = response.modelVersion;
  return completion;
}
