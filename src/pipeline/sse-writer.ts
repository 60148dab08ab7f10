import type { ServerResponse } from 'node:http';

/**
 * Writes `data: <json>\n\n` events with backpressure: when the socket buffer is full, `send`
 * waits for 'drain', which in turn stops the gateway from pulling more from the upstream, so a
 * slow client cannot make memory grow. JSON.stringify never emits a raw CR or LF, so a value
 * cannot break out of its `data:` line.
 *
 * Every write to the TLS socket is a record and a system call, and every `response.write` of a
 * chunked response four socket chunks: the events of one tick (all that one upstream read
 * produced) go out as one write, the headers leave with the first event instead of on their
 * own, and the last events leave together with the end of the response (`end`). Backpressure
 * is felt one tick later: the write after a full socket buffer waits for 'drain'.
 */
export class SseWriter {
  private closed = false;
  private buffered = '';
  private flushScheduled = false;
  private holding = false;
  /** Set while the response's buffer is full: writes wait for it. */
  private drained: Promise<void> | undefined;

  constructor(private readonly response: ServerResponse) {
    // `on`, not `once`: a response closes once, and `once` costs a wrapper and a removal per request.
    response.on('close', () => (this.closed = true));
  }

  get isClosed(): boolean {
    return this.closed || this.response.destroyed;
  }

  /** Sets the status and headers; they are sent with the first event, or at once with `flush`. */
  start(headers: Record<string, string>, options: { flush?: boolean } = {}): void {
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      ...headers,
    });
    if (options.flush) this.response.flushHeaders();
  }

  send(value: unknown): Promise<void> {
    return this.write(sseData(value));
  }

  /** An event already framed by `sseData` (or built to the same bytes). */
  sendFramed(event: string): Promise<void> {
    return this.write(event);
  }

  /** A named event (`sseNamedEvent`), as the Anthropic Messages and OpenAI Responses streams use. */
  sendEvent(event: string, value: unknown): Promise<void> {
    return this.write(sseNamedEvent(event, value));
  }

  /**
   * Keeps what is still buffered for the `end` write: the caller waits (for the usage commit)
   * and then ends the response, so the stream's tail and its end leave in one write.
   */
  holdForEnd(): void {
    this.holding = true;
  }

  /** `data: [DONE]`, after `last` (framed events, if any), and the end of the response, in one write. */
  done(last = ''): void {
    this.end(`${last}data: [DONE]\n\n`);
  }

  /** Ends the response, with `last` (framed events) as its last bytes. */
  end(last = ''): void {
    const text = this.buffered + last;
    this.buffered = '';
    if (!this.isClosed) this.response.end(text === '' ? undefined : text);
  }

  private write(text: string): Promise<void> {
    if (this.isClosed) return RESOLVED;
    this.buffered += text;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(flushWriter, this);
    }
    return this.drained ?? RESOLVED;
  }

  /** Called on the next tick after a write: hands the tick's events to the response in one write. */
  flush(): void {
    this.flushScheduled = false;
    if (this.holding) return;
    const text = this.buffered;
    this.buffered = '';
    if (text === '' || this.isClosed) return;
    if (this.response.write(text) || this.drained) return;
    this.drained = new Promise((resolve) => {
      const finish = () => {
        this.response.off('drain', finish);
        this.response.off('close', finish);
        this.drained = undefined;
        resolve();
      };
      this.response.once('drain', finish);
      this.response.once('close', finish);
    });
  }
}

function flushWriter(writer: SseWriter): void {
  writer.flush();
}

const RESOLVED = Promise.resolve();

/**
 * `event: <name>\ndata: <json>\n\n`. The name is ours, never the client's; CR/LF in it is
 * refused anyway.
 */
export function sseNamedEvent(event: string, value: unknown): string {
  if (/[\r\n]/.test(event)) throw new Error('SSE event names may not contain CR or LF');
  return `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
}

/** `data: <json>\n\n`. */
export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}
