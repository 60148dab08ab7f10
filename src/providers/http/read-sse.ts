import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { SseEvent } from '../types.js';

const NONE: readonly SseEvent[] = Object.freeze([]);

/**
 * Turns the chunks of a byte stream into SSE events as they arrive. The StringDecoder keeps a
 * multi-byte character that straddles two TCP reads intact (and decodes several times faster
 * than a streaming TextDecoder, to the same text, invalid bytes included); eventsource-parser
 * handles CR, LF and CRLF line endings, multi-line `data:` fields and comments.
 */
export class SseDecoder {
  private readonly decoder = new StringDecoder('utf8');
  private readonly parser: EventSourceParser;
  private queue: SseEvent[] = [];
  private atStart = true;

  constructor() {
    this.parser = createParser({
      onEvent: (message) => {
        const event: SseEvent = { data: message.data };
        if (message.event !== undefined) event.event = message.event;
        if (message.id !== undefined) event.id = message.id;
        this.queue.push(event);
      },
    });
  }

  /** The events completed by this chunk. */
  push(chunk: Uint8Array | string): readonly SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    // A byte-order mark at the start of the stream is dropped (as TextDecoder does).
    if (this.atStart && text !== '') {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.atStart = false;
    }
    this.parser.feed(text);
    return this.take();
  }

  /** The events left when the stream ends. */
  end(): readonly SseEvent[] {
    const tail = this.decoder.end();
    if (tail) this.parser.feed(this.atStart && tail.charCodeAt(0) === 0xfeff ? tail.slice(1) : tail);
    // Some servers end the body without the final blank line; the last event still counts.
    this.parser.feed('\n\n');
    return this.take();
  }

  private take(): readonly SseEvent[] {
    if (this.queue.length === 0) return NONE;
    const events = this.queue;
    this.queue = [];
    return events;
  }
}

/** The SSE events of a byte stream (see SseDecoder). */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  for await (const chunk of body) yield* decoder.push(chunk);
  yield* decoder.end();
}
