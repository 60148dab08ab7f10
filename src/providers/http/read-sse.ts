import { createParser } from 'eventsource-parser';
import type { SseEvent } from '../types.js';

/**
 * Turns a byte stream into SSE events. The streaming TextDecoder keeps a multi-byte character
 * that straddles two TCP reads intact; eventsource-parser handles CR, LF and CRLF line endings,
 * multi-line `data:` fields and comments.
 */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const queue: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event: SseEvent = { data: message.data };
      if (message.event !== undefined) event.event = message.event;
      if (message.id !== undefined) event.id = message.id;
      queue.push(event);
    },
  });
  // TextDecoder drops a byte-order mark at the start of the stream; text chunks get the same.
  let atStart = true;
  for await (const chunk of body) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (atStart && text !== '') {
      if (typeof chunk === 'string' && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      atStart = false;
    }
    parser.feed(text);
    while (queue.length > 0) yield queue.shift() as SseEvent;
  }
  const tail = decoder.decode();
  if (tail) parser.feed(tail);
  // Some servers end the body without the final blank line; the last event still counts.
  parser.feed('\n\n');
  while (queue.length > 0) yield queue.shift() as SseEvent;
}
