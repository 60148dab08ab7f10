import type { SseEvent, StreamParser } from '../types.js';
import type { ProviderStreamEvent, TokenUsage } from '../../canonical/completion.js';
import { malformed, parseJson, streamedError } from '../shared/upstream-errors.js';
import { count, isRecord } from '../shared/usage.js';
import { convertAnthropicUsage, withLateUsage } from './convert-usage.js';
import { mapAnthropicStopReason } from './map-stop-reason.js';

/** Anthropic error types worth retrying when they arrive inside a 200 stream. */
const RETRYABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);

/**
 * Anthropic numbers content blocks across text and tool_use; OpenAI numbers tool calls only.
 * `toolIndex` maps one to the other.
 */
export function createAnthropicStreamParser(): StreamParser {
  const toolIndex = new Map<number, number>();
  let usage: TokenUsage | undefined;
  let finished = false;
  let stopped = false;

  function onEvent(type: string, payload: Record<string, unknown>): ProviderStreamEvent[] {
    switch (type) {
      case 'message_start': {
        const message = isRecord(payload.message) ? payload.message : {};
        usage = convertAnthropicUsage(isRecord(message.usage) ? message.usage : undefined);
        const meta: ProviderStreamEvent = { type: 'meta' };
        if (typeof message.id === 'string') meta.upstreamId = message.id;
        if (typeof message.model === 'string') meta.upstreamModel = message.model;
        return [meta];
      }
      case 'content_block_start': {
        const block = isRecord(payload.content_block) ? payload.content_block : {};
        const index = count(payload.index);
        if (block.type === 'tool_use') {
          const i = toolIndex.size;
          toolIndex.set(index, i);
          return [
            {
              type: 'delta',
              toolCalls: [
                {
                  index: i,
                  id: String(block.id ?? `toolu_${i}`),
                  type: 'function',
                  function: { name: String(block.name ?? ''), arguments: '' },
                },
              ],
            },
          ];
        }
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
          return [{ type: 'delta', content: block.text }];
        return [];
      }
      case 'content_block_delta': {
        const delta = isRecord(payload.delta) ? payload.delta : {};
        if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') {
          return [{ type: 'delta', content: delta.text }];
        }
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          const i = toolIndex.get(count(payload.index));
          if (i === undefined || delta.partial_json === '') return [];
          return [{ type: 'delta', toolCalls: [{ index: i, function: { arguments: delta.partial_json } }] }];
        }
        return []; // thinking_delta, signature_delta, citations_delta
      }
      case 'message_delta': {
        const out: ProviderStreamEvent[] = [];
        const delta = isRecord(payload.delta) ? payload.delta : {};
        if (typeof delta.stop_reason === 'string') {
          finished = true;
          out.push({ type: 'finish', finishReason: mapAnthropicStopReason(delta.stop_reason) });
        }
        if (isRecord(payload.usage)) {
          usage = withLateUsage(usage, payload.usage);
          out.push({ type: 'usage', usage: { ...usage } });
        }
        return out;
      }
      case 'message_stop':
        stopped = true;
        return [];
      case 'error': {
        const error = isRecord(payload.error) ? payload.error : {};
        const errorType = typeof error.type === 'string' ? error.type : 'error';
        throw streamedError(
          'anthropic',
          `${errorType}: ${String(error.message ?? 'unknown error')}`,
          RETRYABLE_STREAM_ERRORS.has(errorType),
        );
      }
      default:
        return []; // ping, content_block_stop, and event types added later
    }
  }

  return {
    push(sse: SseEvent): ProviderStreamEvent[] {
      if (sse.data.trim() === '') return [];
      const payload = parseJson(sse.data, 'anthropic stream event');
      if (!isRecord(payload)) throw malformed('anthropic stream event is not a JSON object');
      const type = sse.event ?? (typeof payload.type === 'string' ? payload.type : '');
      return onEvent(type, payload);
    },
    end(): ProviderStreamEvent[] {
      if (!stopped && !finished) throw malformed('anthropic stream ended before message_stop');
      return [];
    },
  };
}
