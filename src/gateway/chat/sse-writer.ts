import type { ServerResponse } from 'node:http';

/**
 * Writes `data: <json>\n\n` events with backpressure: when the socket buffer is full, `send`
 * waits for 'drain', which in turn stops the gateway from pulling more from the upstream, so a
 * slow client cannot make memory grow. JSON.stringify never emits a raw CR or LF, so a value
 * cannot break out of its `data:` line.
 */
export class SseWriter {
  private closed = false;

  constructor(private readonly response: ServerResponse) {
    response.once('close', () => (this.closed = true));
  }

  get isClosed(): boolean {
    return this.closed || this.response.destroyed;
  }

  start(headers: Record<string, string>): void {
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      ...headers,
    });
    this.response.flushHeaders();
  }

  async send(value: unknown): Promise<void> {
    await this.write(`data: ${JSON.stringify(value)}\n\n`);
  }

  /**
   * A named event, `event: <name>\ndata: <json>\n\n`, as the Anthropic Messages and OpenAI
   * Responses streams use. The name is ours, never the client's; CR/LF in it is refused anyway.
   */
  async sendEvent(event: string, value: unknown): Promise<void> {
    if (/[\r\n]/.test(event)) throw new Error('SSE event names may not contain CR or LF');
    await this.write(`event: ${event}\ndata: ${JSON.stringify(value)}\n\n`);
  }

  async done(): Promise<void> {
    await this.write('data: [DONE]\n\n');
    this.end();
  }

  end(): void {
    if (!this.isClosed) this.response.end();
  }

  private write(text: string): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    if (this.response.write(text)) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        this.response.off('drain', finish);
        this.response.off('close', finish);
        resolve();
      };
      this.response.once('drain', finish);
      this.response.once('close', finish);
    });
  }
}
