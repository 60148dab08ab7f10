import type { FinishReason, ProviderCompletion, ProviderStreamEvent, TokenUsage } from '../canonical/completion.js';
import type { ToolCall } from '../canonical/chat-request.js';
import { KeptText } from '../providers/index.js';

/**
 * Rebuilds the whole assistant message from stream events: for metering when a stream ends
 * early (tokens seen so far), and for the gateway-tool loop, which needs the complete calls.
 * What it keeps is counted in `kept` (the request's, shared by the tool loop's rounds): an
 * upstream that streams deltas without end fails the request at the limit (oversized).
 */
export class StreamAccumulator {
  content = '';
  refusal = '';
  finishReason: FinishReason | null = null;
  usage: TokenUsage | null = null;
  upstreamId: string | undefined;
  upstreamModel: string | undefined;
  private readonly toolCalls = new Map<number, { id: string; name: string; arguments: string }>();

  constructor(private readonly kept: KeptText = new KeptText()) {}

  add(event: ProviderStreamEvent): void {
    switch (event.type) {
      case 'delta':
        if (event.content) {
          this.kept.add(event.content);
          this.content += event.content;
        }
        if (event.refusal) {
          this.kept.add(event.refusal);
          this.refusal += event.refusal;
        }
        if (event.toolCalls === undefined) break;
        for (const fragment of event.toolCalls) {
          const call = this.toolCalls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) {
            this.kept.add(fragment.function.name);
            call.name += fragment.function.name;
          }
          if (fragment.function?.arguments) {
            this.kept.add(fragment.function.arguments);
            call.arguments += fragment.function.arguments;
          }
          this.toolCalls.set(fragment.index, call);
        }
        break;
      case 'finish':
        this.finishReason = event.finishReason;
        break;
      case 'usage':
        this.usage = event.usage;
        break;
      case 'meta':
        if (event.upstreamId) this.upstreamId = event.upstreamId;
        if (event.upstreamModel) this.upstreamModel = event.upstreamModel;
        break;
    }
  }

  calls(): ToolCall[] {
    return [...this.toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      }));
  }

  /** Text the model produced so far, for estimating completion tokens when no usage arrived. */
  producedText(): string {
    return (
      this.content +
      this.refusal +
      this.calls()
        .map((c) => c.function.name + c.function.arguments)
        .join('')
    );
  }

  toCompletion(usage: TokenUsage): ProviderCompletion {
    const calls = this.calls();
    return {
      ...(this.upstreamId ? { upstreamId: this.upstreamId } : {}),
      ...(this.upstreamModel ? { upstreamModel: this.upstreamModel } : {}),
      message: {
        role: 'assistant',
        content: this.content || (calls.length ? null : ''),
        ...(calls.length ? { tool_calls: calls } : {}),
        ...(this.refusal ? { refusal: this.refusal } : {}),
      },
      finishReason: this.finishReason ?? 'stop',
      usage,
    };
  }
}
