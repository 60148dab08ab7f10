// Reading a raw call's answer as SSE events, batch by batch (raw-call.ts opens the call).
import type { SseEvent } from '../types.js';
import type { EventBatches } from '../event-batches.js';
import { SseDecoder } from './read-sse.js';
import type { RawCall } from './raw-call.js';

/** What turns SSE events into a caller's events (a codec's StreamParser; `end` may be absent). */
export interface SseEventParser<T> {
  push(event: SseEvent): Iterable<T>;
  end?(): Iterable<T>;
}

const SSE_AS_IS: SseEventParser<SseEvent> = { push: (event) => [event] };

/**
 * The SSE events of a raw call, each turned into the caller's events by `parser`, a batch per
 * upstream read (EventBatches; iterable event by event too). Stopping early (`cancel`, or the
 * iterator's `return()`, i.e. its client went away) or any error aborts the upstream at once;
 * errors come back as UpstreamErrors. Events already parsed never come out after an abort.
 */
export function readRawEvents<T>(call: RawCall, parser: SseEventParser<T>): EventBatches<T> {
  return new RawEvents(call, parser);
}

class RawEvents<T> implements EventBatches<T> {
  private readonly decoder: SseDecoder;
  private finished = false;

  constructor(
    private readonly call: RawCall,
    private readonly parser: SseEventParser<T>,
  ) {
    this.decoder = new SseDecoder(call.buffers);
  }

  async nextBatch(): Promise<readonly T[] | undefined> {
    if (this.finished) return undefined;
    try {
      for (;;) {
        const chunk = await this.call.read();
        const batch: T[] = [];
        if (chunk === null) {
          this.parseInto(batch, this.decoder.end());
          if (this.parser.end) for (const event of this.parser.end()) batch.push(event);
          this.checkNotAborted();
          this.finish(false);
          return batch.length > 0 ? batch : undefined;
        }
        this.parseInto(batch, this.decoder.push(chunk));
        if (batch.length === 0) continue;
        this.checkNotAborted();
        return batch;
      }
    } catch (err) {
      // Mapped before the abort below, which would make any failure look like an abort.
      const error = this.call.toError(err);
      this.finish(true);
      throw error;
    }
  }

  cancel(): void {
    this.finish(true);
  }

  /** Event by event; an abort also stops the events of a batch already read. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    let ended = false;
    try {
      for (let batch = await this.nextBatch(); batch !== undefined; batch = await this.nextBatch()) {
        for (const event of batch) {
          if (this.call.aborted) throw this.call.toError(new Error('aborted'));
          yield event;
        }
      }
      ended = true;
    } finally {
      if (!ended) this.cancel();
    }
  }

  private parseInto(batch: T[], events: readonly SseEvent[]): void {
    for (const sse of events) for (const event of this.parser.push(sse)) batch.push(event);
  }

  private checkNotAborted(): void {
    if (this.call.aborted) throw new Error('aborted');
  }

  private finish(abort: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (abort) this.call.abort();
    this.call.dispose();
  }
}

/** The SSE events of a raw call, as they come (see readRawEvents). */
export function readRawSse(call: RawCall): EventBatches<SseEvent> {
  return readRawEvents(call, SSE_AS_IS);
}
