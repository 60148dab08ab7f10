import type { ChatRequest, ToolCall } from '../../src/canonical/chat-request.js';
import type { CallOptions } from '../../src/providers/types.js';
import type { FinishReason, ProviderStreamEvent, TokenUsage } from '../../src/canonical/completion.js';

export const TIMEOUTS: CallOptions['timeouts'] = { connectMs: 1000, firstByteMs: 3000, betweenChunksMs: 3000 };

export function callOptions(
  overrides: Partial<CallOptions['timeouts']> = {},
  signal: AbortSignal = new AbortController().signal,
): CallOptions {
  return { signal, timeouts: { ...TIMEOUTS, ...overrides } };
}

export function chat(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'test/model', messages: [{ role: 'user', content: text }], ...extra };
}

export interface Collected {
  text: string;
  toolCalls: ToolCall[];
  finishReason?: FinishReason;
  usage?: TokenUsage;
  meta: Array<{ upstreamId?: string; upstreamModel?: string }>;
  events: ProviderStreamEvent[];
}

/** Drains a provider stream and assembles the answer the way the gateway would. */
export async function collect(stream: AsyncIterable<ProviderStreamEvent>): Promise<Collected> {
  const out: Collected = { text: '', toolCalls: [], meta: [], events: [] };
  for await (const event of stream) {
    out.events.push(event);
    if (event.type === 'delta') {
      out.text += event.content ?? '';
      for (const delta of event.toolCalls ?? []) {
        const call = (out.toolCalls[delta.index] ??= {
          id: '',
          type: 'function',
          function: { name: '', arguments: '' },
        });
        if (delta.id) call.id = delta.id;
        if (delta.function?.name) call.function.name += delta.function.name;
        if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
      }
    } else if (event.type === 'finish') out.finishReason = event.finishReason;
    else if (event.type === 'usage') out.usage = event.usage;
    else out.meta.push(event);
  }
  return out;
}

export async function waitFor(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves with the value, or with 'timeout' after ms. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return Promise.race([promise, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref())]);
}
