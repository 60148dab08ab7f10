import type { ProviderStreamEvent, TokenUsage } from '../../canonical/completion.js';
import type { StreamSession, GatewayError, StreamEncoder } from '../../pipeline/index.js';
import { sseNamedEvent } from '../../pipeline/sse-writer.js';

/** `event: <name>` + `data: <json>`: the framing of Anthropic's and OpenAI Responses' streams. */
export type NamedEvent = [name: string, data: Record<string, unknown>];

/** Turns provider-neutral stream events into one client wire format's named events. */
export interface NamedEventTranslator {
  start(): NamedEvent[];
  push(event: ProviderStreamEvent): NamedEvent[];
  finish(usage: TokenUsage, extras: Record<string, unknown>): NamedEvent[];
  /** The events that end a stream which failed after its headers were sent. */
  fail(error: GatewayError, requestId: string): NamedEvent[];
}

/** The core's stream encoder for a translated stream of named SSE events. */
export function namedEventEncoder(
  translator: NamedEventTranslator,
  session: StreamSession,
  requestId: string,
): StreamEncoder<ProviderStreamEvent> {
  return {
    start: () => framed(translator.start()),
    push: (event) => framed(translator.push(event)),
    finish: () => framed(translator.finish(session.usage(), session.extras())),
    fail: (error) => framed(translator.fail(error, requestId)),
  };
}

export function framed(events: NamedEvent[]): string {
  let text = '';
  for (const [name, data] of events) text += sseNamedEvent(name, data);
  return text;
}
