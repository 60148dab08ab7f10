import type { FinishReason, ProviderStreamEvent, TokenUsage } from '../../canonical/completion.js';
import type { ResponsesRequest } from './responses-schema.js';
import {
  callItem,
  formatResponse,
  messageItem,
  newItemId,
  outputText,
  statusOf,
  type OutputItem,
  type ResponseIdentity,
} from './convert-response.js';

import { customInput, FlatTools } from './flat-tools.js';
import type { NamedEvent, NamedEventTranslator } from '../chat/named-event-stream.js';
import type { GatewayError } from '../../pipeline/errors.js';

export type { NamedEvent };

type OpenItem =
  | { kind: 'message'; outputIndex: number; id: string; text: string }
  | {
      kind: 'call';
      outputIndex: number;
      id: string;
      callId: string;
      name: string;
      arguments: string;
      /** A custom tool's call: its input is sent whole when the call ends (the provider streams JSON around it). */
      custom: boolean;
    };

/**
 * Provider-neutral stream events → the Responses stream: `response.created`,
 * `response.in_progress`, then per output item `response.output_item.added`, its content
 * (`response.content_part.added`, `response.output_text.delta` … `.done`,
 * `response.content_part.done`, or `response.function_call_arguments.delta` … `.done`) and
 * `response.output_item.done`, and last `response.completed` (or `response.incomplete`). Every
 * event carries `type` and a `sequence_number`. Pure: the route writes what it returns.
 */
export class ResponsesStreamTranslator implements NamedEventTranslator {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  private open: OpenItem | undefined;
  /** Output item of each tool call, by the chat stream's tool-call index. */
  private readonly calls = new Map<number, Extract<OpenItem, { kind: 'call' }>>();
  private finishReason: FinishReason = 'stop';
  private readonly names: FlatTools;

  constructor(
    private readonly identity: ResponseIdentity,
    private readonly body: ResponsesRequest,
  ) {
    this.names = FlatTools.of(body);
  }

  start(): NamedEvent[] {
    const response = formatResponse(this.identity, this.body, { status: 'in_progress', output: [], usage: null });
    return [this.event('response.created', { response }), this.event('response.in_progress', { response })];
  }

  push(source: ProviderStreamEvent): NamedEvent[] {
    if (source.type === 'finish') this.finishReason = source.finishReason;
    if (source.type !== 'delta') return [];
    const out: NamedEvent[] = [];
    const text = (source.content ?? '') + (source.refusal ?? '');
    if (text !== '') {
      if (this.open?.kind !== 'message') {
        this.close(out);
        this.open = this.openMessage(out);
      }
      this.open.text += text;
      out.push(
        this.event('response.output_text.delta', {
          item_id: this.open.id,
          output_index: this.open.outputIndex,
          content_index: 0,
          delta: text,
          logprobs: [],
        }),
      );
    }
    for (const fragment of source.toolCalls ?? []) {
      let call = this.calls.get(fragment.index);
      if (!call) {
        this.close(out);
        const name = fragment.function?.name ?? '';
        const custom = this.names.origin(name)?.kind === 'custom';
        call = {
          kind: 'call',
          outputIndex: this.output.length,
          id: newItemId(custom ? 'ctc' : 'fc'),
          callId: fragment.id ?? `call_${fragment.index}`,
          name,
          arguments: '',
          custom,
        };
        this.output.push(this.callItem(call, 'in_progress'));
        this.calls.set(fragment.index, call);
        this.open = call;
        out.push(
          this.event('response.output_item.added', {
            output_index: call.outputIndex,
            item: this.callItem(call, 'in_progress'),
          }),
        );
      }
      const args = fragment.function?.arguments;
      if (args) {
        call.arguments += args;
        if (call.custom) continue;
        out.push(
          this.event('response.function_call_arguments.delta', {
            item_id: call.id,
            output_index: call.outputIndex,
            delta: args,
          }),
        );
      }
    }
    return out;
  }

  /** Closes the last item and completes the response with the metered usage. */
  finish(usage: TokenUsage, extras: Record<string, unknown>): NamedEvent[] {
    const out: NamedEvent[] = [];
    this.close(out);
    if (this.output.length === 0) {
      // Nothing was produced: still one (empty) message, as a JSON response has.
      this.close(out, this.openMessage(out));
    }
    const { status, incomplete_details } = statusOf(this.finishReason);
    const response = formatResponse(
      this.identity,
      this.body,
      { status, output: this.output, usage, incompleteDetails: incomplete_details },
      extras,
    );
    out.push(this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }));
    return out;
  }

  /** A failure after the stream began: `response.failed` with the error, as OpenAI ends such streams. */
  fail(failure: GatewayError): NamedEvent[] {
    const error = { code: failure.code, message: failure.message };
    const response = formatResponse(this.identity, this.body, {
      status: 'failed',
      output: this.output,
      usage: null,
      error,
    });
    return [this.event('response.failed', { response })];
  }

  private openMessage(out: NamedEvent[]): Extract<OpenItem, { kind: 'message' }> {
    const item: Extract<OpenItem, { kind: 'message' }> = {
      kind: 'message',
      outputIndex: this.output.length,
      id: newItemId('msg'),
      text: '',
    };
    this.output.push(messageItem(item.id, '', 'in_progress'));
    out.push(
      this.event('response.output_item.added', {
        output_index: item.outputIndex,
        item: messageItem(item.id, '', 'in_progress'),
      }),
    );
    out.push(
      this.event('response.content_part.added', {
        item_id: item.id,
        output_index: item.outputIndex,
        content_index: 0,
        part: outputText(''),
      }),
    );
    return item;
  }

  private close(out: NamedEvent[], item: OpenItem | undefined = this.open): void {
    if (!item) return;
    if (item.kind === 'message') {
      const base = { item_id: item.id, output_index: item.outputIndex, content_index: 0 };
      out.push(this.event('response.output_text.done', { ...base, text: item.text, logprobs: [] }));
      out.push(this.event('response.content_part.done', { ...base, part: outputText(item.text) }));
      const done = messageItem(item.id, item.text, 'completed');
      this.output[item.outputIndex] = done;
      out.push(this.event('response.output_item.done', { output_index: item.outputIndex, item: done }));
    } else {
      const base = { item_id: item.id, output_index: item.outputIndex };
      if (item.custom) {
        const input = customInput(item.arguments);
        out.push(this.event('response.custom_tool_call_input.delta', { ...base, delta: input }));
        out.push(this.event('response.custom_tool_call_input.done', { ...base, input }));
      } else {
        const name = this.names.origin(item.name)?.name ?? item.name;
        out.push(this.event('response.function_call_arguments.done', { ...base, name, arguments: item.arguments }));
      }
      const done = this.callItem(item, 'completed');
      this.output[item.outputIndex] = done;
      out.push(this.event('response.output_item.done', { output_index: item.outputIndex, item: done }));
    }
    if (item === this.open) this.open = undefined;
  }

  private callItem(call: Extract<OpenItem, { kind: 'call' }>, status: 'in_progress' | 'completed'): OutputItem {
    return callItem(this.names, call, status);
  }

  private event(type: string, payload: Record<string, unknown>): NamedEvent {
    return [type, { type, sequence_number: this.sequence++, ...payload }];
  }
}
