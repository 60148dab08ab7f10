import type { SseEvent, StreamParser } from '../types.js';
import type { ProviderStreamEvent } from '../../canonical/completion.js';
import { malformed, parseJson, streamedError } from '../shared/upstream-errors.js';
import { isRecord } from '../shared/usage.js';
import { readParts } from './convert-parts.js';
import { convertGeminiUsage } from './convert-usage.js';
import { mapGeminiFinishReason } from './map-finish-reason.js';
import type { GeminiResponse } from './wire.js';

/**
 * Each SSE event is a whole GenerateContentResponse holding the next slice of the answer.
 * Function calls arrive complete (never split), so each becomes one tool-call delta.
 */
export function createGeminiStreamParser(): StreamParser {
  let sentMeta = false;
  let toolCount = 0;
  let finished = false;

  return {
    push(sse: SseEvent): ProviderStreamEvent[] {
      if (sse.data.trim() === '') return [];
      const payload = parseJson(sse.data, 'gemini stream event');
      if (!isRecord(payload)) throw malformed('gemini stream event is not a JSON object');
      const chunk = payload as GeminiResponse;
      if (isRecord(chunk.error)) {
        const status = typeof chunk.error.status === 'string' ? chunk.error.status : 'error';
        throw streamedError(
          'gemini',
          `${status}: ${String(chunk.error.message ?? 'unknown error')}`,
          status === 'UNAVAILABLE' || status === 'RESOURCE_EXHAUSTED',
        );
      }
      const out: ProviderStreamEvent[] = [];
      if (!sentMeta) {
        sentMeta = true;
        out.push({
          type: 'meta',
          ...(typeof chunk.responseId === 'string' ? { upstreamId: chunk.responseId } : {}),
          ...(typeof chunk.modelVersion === 'string' ? { upstreamModel: chunk.modelVersion } : {}),
        });
      }
      const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
      const { text, toolCalls } = readParts(candidate?.content?.parts);
      if (text !== '' || toolCalls.length > 0) {
        const delta: ProviderStreamEvent = { type: 'delta' };
        if (text !== '') delta.content = text;
        if (toolCalls.length > 0) {
          delta.toolCalls = toolCalls.map((call) => ({
            index: toolCount++,
            id: call.id,
            type: 'function',
            function: { ...call.function },
          }));
        }
        out.push(delta);
      }
      if (candidate?.finishReason) {
        finished = true;
        out.push({ type: 'finish', finishReason: mapGeminiFinishReason(candidate.finishReason, toolCount > 0) });
      } else if (!candidate && chunk.promptFeedback?.blockReason) {
        finished = true;
        out.push({ type: 'finish', finishReason: 'content_filter' });
      }
      if (isRecord(chunk.usageMetadata)) out.push({ type: 'usage', usage: convertGeminiUsage(chunk.usageMetadata) });
      return out;
    },
    end(): ProviderStreamEvent[] {
      if (!finished) throw malformed('gemini stream ended before a finishReason');
      return [];
    },
  };
}
