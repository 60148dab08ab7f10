/**
 * A stream of events read a batch at a time: the events one upstream read produced. The call
 * core relays streams this way: one promise per upstream read, where an async generator per
 * layer (transport, metering, relay) cost a few promises and microtasks per event and per layer,
 * the largest part of a streamed request's allocations. The streams are async iterables too, so
 * whoever wants events one by one (tests, the gateway-tool loop, native routes) still iterates.
 */
export interface EventBatches<T> extends AsyncIterable<T> {
  /** The next events (never an empty batch), or undefined once the stream has ended. Rejects with the stream's error. */
  nextBatch(): Promise<readonly T[] | undefined>;
  /** Stops early: whatever produces the events is told to stop (the upstream is aborted). Safe to call twice, or after the end. */
  cancel(): void;
}

export function isEventBatches<T>(source: AsyncIterable<T>): source is EventBatches<T> {
  return typeof (source as Partial<EventBatches<T>>).nextBatch === 'function';
}

/** `source` read a batch at a time: as it is when it already is a batch stream, else one event per batch. */
export function batchesOf<T>(source: AsyncIterable<T>): EventBatches<T> {
  return isEventBatches(source) ? source : new IteratedBatches(source);
}

/** The async-iterable side of a batch stream: event by event; stopping early (break, throw) cancels it. */
export async function* eventsOf<T>(stream: EventBatches<T>): AsyncGenerator<T> {
  let ended = false;
  try {
    for (let batch = await stream.nextBatch(); batch !== undefined; batch = await stream.nextBatch()) yield* batch;
    ended = true;
  } finally {
    if (!ended) stream.cancel();
  }
}

/** An async iterable read one event per batch (sources that are not batch streams). */
class IteratedBatches<T> implements EventBatches<T> {
  private iterator: AsyncIterator<T> | undefined;
  private done = false;

  constructor(private readonly source: AsyncIterable<T>) {}

  async nextBatch(): Promise<readonly T[] | undefined> {
    if (this.done) return undefined;
    this.iterator ??= this.source[Symbol.asyncIterator]();
    let result: IteratorResult<T>;
    try {
      result = await this.iterator.next();
    } catch (error) {
      this.done = true;
      throw error;
    }
    if (result.done) {
      this.done = true;
      return undefined;
    }
    return [result.value];
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    // An iterator stopped early runs its `finally` blocks (an async generator's upstream abort).
    void this.iterator?.return?.()?.catch(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return eventsOf(this);
  }
}
