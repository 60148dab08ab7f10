import type { FastifyReply } from 'fastify';
import type { ProviderStreamEvent, TokenUsage } from '../../canonical/completion.js';
import { GatewayError } from '../errors.js';
import { executeStream, type Execution } from './execute.js';
import { usageCommitted } from './metering.js';
import { SseWriter, sseNamedEvent } from './sse-writer.js';

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

/**
 * Runs an admitted request as a stream of named SSE events: headers once the upstream has
 * answered, events with backpressure, the last one only after the usage row is committed, and
 * a failure mid-stream reported in the translator's own error event.
 */
export async function streamNamedEvents(
  reply: FastifyReply,
  execution: Execution,
  translator: NamedEventTranslator,
  decorate: (extras: Record<string, unknown>) => Record<string, unknown> = (extras) => extras,
): Promise<void> {
  const session = await executeStream(execution);
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  writer.start({ 'x-request-id': execution.request.id });
  const send = async (events: NamedEvent[]) => {
    for (const [name, data] of events) await writer.sendEvent(name, data);
  };
  try {
    await send(translator.start());
    for await (const event of session.events) {
      await send(translator.push(event));
      if (writer.isClosed) break;
    }
    if (writer.isClosed) return;
    writer.holdForEnd();
    await usageCommitted(execution.request);
    // The last events and the end of the response leave in one write.
    writer.end(framed(translator.finish(session.usage(), decorate(session.extras()))));
  } catch (error) {
    const gatewayError = error instanceof GatewayError ? error : new GatewayError('internal_error');
    writer.end(framed(translator.fail(gatewayError, execution.request.id)));
  }
}

function framed(events: NamedEvent[]): string {
  let text = '';
  for (const [name, data] of events) text += sseNamedEvent(name, data);
  return text;
}
