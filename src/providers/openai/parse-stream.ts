import type { SseEvent, StreamParser } from '../types.js';
import type { ProviderStreamEvent, ToolCallDelta } from '../../canonical/completion.js';
import { malformed, parseJson, streamedError } from '../shared/upstream-errors.js';
import { isRecord } from '../shared/usage.js';
import { convertOpenAIUsage } from './convert-usage.js';
import { mapOpenAIFinishReason } from './map-finish-reason.js';
import type { OpenAIResponse, OpenAIToolCall } from './wire.js';

function toolCallDeltas(calls: OpenAIToolCall[]): ToolCallDelta[] {
  return calls.map((call, i) => {
    const delta: ToolCallDelta = { index: typeof call.index === 'number' ? call.index : i };
    if (typeof call.id === 'string') delta.id = call.id;
    if (call.type === 'function' || call.id) delta.type = 'function';
    if (call.function) {
      delta.function = {};
      if (typeof call.function.name === 'string') delta.function.name = call.function.name;
      if (typeof call.function.arguments === 'string') delta.function.arguments = call.function.arguments;
    }
    return delta;
  });
}

export function createOpenAIStreamParser(): StreamParser {
  let sentMeta = false;
  let finished = false;
  let sawDone = false;

  return {
    push(sse: SseEvent): ProviderStreamEvent[] {
      const data = sse.data.trim();
      if (data === '[DONE]') {
        sawDone = true;
        return [];
      }
      if (data === '') return [];
      const chunk = parseJson(data, 'openai stream chunk');
      if (!isRecord(chunk)) throw malformed('openai stream chunk is not a JSON object');
      const body = chunk as OpenAIResponse;
      if (isRecord(body.error)) throw streamedError('openai', String(body.error.message ?? 'unknown error'), false);

      const out: ProviderStreamEvent[] = [];
      if (!sentMeta && (typeof body.id === 'string' || typeof body.model === 'string')) {
        sentMeta = true;
        const meta: Extract<ProviderStreamEvent, { type: 'meta' }> = { type: 'meta' };
        if (body.id) meta.upstreamId = body.id;
        if (body.model) meta.upstreamModel = body.model;
        out.push(meta);
      }
      const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
      const delta = choice?.delta;
      if (isRecord(delta)) {
        const event: Extract<ProviderStreamEvent, { type: 'delta' }> = { type: 'delta' };
        if (typeof delta.content === 'string' && delta.content !== '') event.content = delta.content;
        if (typeof delta.refusal === 'string' && delta.refusal !== '') event.refusal = delta.refusal;
        if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0)
          event.toolCalls = toolCallDeltas(delta.tool_calls);
        if (event.content !== undefined || event.refusal !== undefined || event.toolCalls) out.push(event);
      }
      if (choice?.finish_reason) {
        finished = true;
        out.push({ type: 'finish', finishReason: mapOpenAIFinishReason(choice.finish_reason) });
      }
      if (isRecord(body.usage)) out.push({ type: 'usage', usage: convertOpenAIUsage(body.usage) });
      return out;
    },
    end(): ProviderStreamEvent[] {
      // A missing [DONE] is tolerated (several compatible servers omit it); a missing finish is not.
      if (!finished && !sawDone) throw malformed('openai stream ended before a finish_reason');
      return [];
    },
  };
}
