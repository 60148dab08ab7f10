import type { FinishReason, ProviderStreamEvent, TokenUsage } from '../../canonical/completion.js';
import { toAnthropicStopReason, toAnthropicUsage, type MessageIdentity } from './convert-response.js';

/** One server-sent event: its `event:` name and its `data:` JSON (which repeats the name as `type`). */
import type { NamedEvent, NamedEventTranslator } from '../chat/named-event-stream.js';
import type { GatewayError } from '../../pipeline/errors.js';
import { toAnthropicError } from './anthropic-errors.js';

export type { NamedEvent };

type OpenBlock = { kind: 'text'; index: number } | { kind: 'tool'; index: number; toolIndex: number };

/**
 * Provider-neutral stream events → Anthropic's Messages stream: `message_start`, `ping`, then
 * one content block at a time (`content_block_start`, `content_block_delta` with `text_delta`
 * or `input_json_delta`, `content_block_stop`), then `message_delta` (stop reason and the final
 * usage) and `message_stop`. Pure: the route writes what it returns.
 */
export class AnthropicStreamTranslator implements NamedEventTranslator {
  private open: OpenBlock | undefined;
  private nextIndex = 0;
  /** Content-block index of each tool call (the chat stream numbers tool calls on their own). */
  private readonly toolBlocks = new Map<number, number>();
  private finishReason: FinishReason = 'stop';

  constructor(private readonly identity: MessageIdentity) {}

  /**
   * Anthropic's first events. The real input counts are known only at the end of the upstream
   * stream, so message_start says 0 and message_delta carries them (SDKs take them from there).
   */
  start(): NamedEvent[] {
    return [
      event('message_start', {
        message: {
          id: this.identity.id,
          type: 'message',
          role: 'assistant',
          model: this.identity.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      }),
      event('ping', {}),
    ];
  }

  push(source: ProviderStreamEvent): NamedEvent[] {
    if (source.type === 'finish') this.finishReason = source.finishReason;
    if (source.type !== 'delta') return [];
    const out: NamedEvent[] = [];
    const text = (source.content ?? '') + (source.refusal ?? '');
    if (text !== '') {
      if (this.open?.kind !== 'text') {
        this.close(out);
        this.open = { kind: 'text', index: this.nextIndex++ };
        out.push(event('content_block_start', { index: this.open.index, content_block: { type: 'text', text: '' } }));
      }
      out.push(event('content_block_delta', { index: this.open.index, delta: { type: 'text_delta', text } }));
    }
    for (const fragment of source.toolCalls ?? []) {
      let index = this.toolBlocks.get(fragment.index);
      if (index === undefined) {
        this.close(out);
        index = this.nextIndex++;
        this.toolBlocks.set(fragment.index, index);
        this.open = { kind: 'tool', index, toolIndex: fragment.index };
        const block = {
          type: 'tool_use',
          id: fragment.id ?? `toolu_${index}`,
          name: fragment.function?.name ?? '',
          input: {},
        };
        out.push(event('content_block_start', { index, content_block: block }));
      }
      // Adapters stream calls one after another; a fragment for an earlier call (never seen from
      // the current adapters) still goes to that call's block, which SDKs accumulate by index.
      const args = fragment.function?.arguments;
      if (args)
        out.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args } }));
    }
    return out;
  }

  /** Closes the last block and ends the message with the metered usage. */
  /** A failure after the stream began: Anthropic's `error` event. */
  fail(error: GatewayError, requestId: string): NamedEvent[] {
    return [['error', toAnthropicError(error, requestId) as Record<string, unknown>]];
  }

  finish(usage: TokenUsage, extras: Record<string, unknown>): NamedEvent[] {
    const out: NamedEvent[] = [];
    this.close(out);
    out.push(
      event('message_delta', {
        delta: { stop_reason: toAnthropicStopReason(this.finishReason), stop_sequence: null },
        usage: toAnthropicUsage(usage),
        ...extras,
      }),
    );
    out.push(event('message_stop', {}));
    return out;
  }

  private close(out: NamedEvent[]): void {
    if (!this.open) return;
    out.push(event('content_block_stop', { index: this.open.index }));
    this.open = undefined;
  }
}

function event(name: string, payload: Record<string, unknown>): NamedEvent {
  return [name, { type: name, ...payload }];
}
