import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { SseEvent } from '../types.js';
import { BufferAccount } from '../bounds/buffer-budget.js';
import { answerTooLarge, upstreamLimits } from '../bounds/upstream-limits.js';

const NONE: readonly SseEvent[] = Object.freeze([]);

/**
 * Turns the chunks of a byte stream into SSE events as they arrive. The StringDecoder keeps a
 * multi-byte character that straddles two TCP reads intact (and decodes several times faster
 * than a streaming TextDecoder, to the same text, invalid bytes included); eventsource-parser
 * handles CR, LF and CRLF line endings, multi-line `data:` fields and comments.
 *
 * eventsource-parser keeps an unfinished line and an unfinished event whatever their size, so
 * the decoder bounds both (`sseLineBytes`, `sseEventBytes`) and charges what is pending to
 * `account`: an upstream that never ends a line fails its request after about the limit, a
 * chunk more at most, instead of growing the process until it dies.
 */
export class SseDecoder {
  private readonly decoder = new StringDecoder('utf8');
  private readonly parser: EventSourceParser;
  private queue: SseEvent[] = [];
  private atStart = true;
  /** Bytes since the last line ending, and since the last event ended (exact to a chunk). */
  private lineBytes = 0;
  private eventBytes = 0;
  private unended: Array<Uint8Array | string> = [];
  private readonly limits = upstreamLimits();

  constructor(private readonly account: BufferAccount = new BufferAccount()) {
    this.parser = createParser({
      onEvent: (message) => {
        const event: SseEvent = { data: message.data };
        if (message.event !== undefined) event.event = message.event;
        if (message.id !== undefined) event.id = message.id;
        this.queue.push(event);
      },
    });
  }

  /** The events completed by this chunk. Throws (oversized) when a line or an event outgrows its bound. */
  push(chunk: Uint8Array | string): readonly SseEvent[] {
    const size = typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    const lastEnding = lastLineEnding(chunk);
    if (lastEnding < 0) {
      this.lineBytes += size;
      if (this.lineBytes > this.limits.sseLineBytes) throw answerTooLarge('SSE line', this.limits.sseLineBytes);
      this.holdPending(this.eventBytes + size);
      // Kept as it came until its line ends: a line that never ends is never decoded nor copied.
      this.unended.push(chunk);
      return NONE;
    }
    this.lineBytes = size - lastEnding - 1;
    const queued = this.queue.length;
    this.parser.feed(this.decode(chunk));
    // An event ended in this chunk: what is pending is at most the chunk's last line.
    this.holdPending(this.queue.length > queued ? this.lineBytes : this.eventBytes + size);
    return this.take();
  }

  /** The events left when the stream ends. */
  end(): readonly SseEvent[] {
    const tail = this.decode('') + this.decoder.end();
    if (tail) this.parser.feed(tail);
    // Some servers end the body without the final blank line; the last event still counts.
    this.parser.feed('\n\n');
    this.account.hold(0);
    return this.take();
  }

  private holdPending(eventBytes: number): void {
    if (eventBytes > this.limits.sseEventBytes) throw answerTooLarge('SSE event', this.limits.sseEventBytes);
    this.eventBytes = eventBytes;
    this.account.hold(eventBytes);
  }

  /** The text of the chunks whose line had not ended, then of `chunk`. */
  private decode(chunk: Uint8Array | string): string {
    let text = '';
    for (const piece of this.unended) text += typeof piece === 'string' ? piece : this.decoder.write(piece);
    this.unended = [];
    text += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    // A byte-order mark at the start of the stream is dropped (as TextDecoder does).
    if (this.atStart && text !== '') {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.atStart = false;
    }
    return text;
  }

  private take(): readonly SseEvent[] {
    if (this.queue.length === 0) return NONE;
    const events = this.queue;
    this.queue = [];
    return events;
  }
}

const LF = 0x0a;
const CR = 0x0d;

/** Where the chunk's last line ending is (CR or LF), or -1. */
function lastLineEnding(chunk: Uint8Array | string): number {
  if (typeof chunk === 'string') return Math.max(chunk.lastIndexOf('\n'), chunk.lastIndexOf('\r'));
  return Math.max(chunk.lastIndexOf(LF), chunk.lastIndexOf(CR));
}

/** The SSE events of a byte stream (see SseDecoder). */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const account = new BufferAccount();
  const decoder = new SseDecoder(account);
  try {
    for await (const chunk of body) yield* decoder.push(chunk);
    yield* decoder.end();
  } finally {
    account.release();
  }
}
