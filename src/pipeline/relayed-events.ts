// The stream a call relays: its source's batches, observed, and the request settled once.
import { eventsOf, type EventBatches } from '../providers/index.js';
import type { TokenUsage } from '../canonical/completion.js';
import type { GatewayError } from './errors.js';
import { ZERO_USAGE } from './meter.js';

/** HTTP status recorded for a request whose client went away (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;
export const CLIENT_CLOSED = { status: CLIENT_CLOSED_REQUEST, errorCode: 'client_closed' } as const;
export const ANSWERED = { status: 200, errorCode: null } as const;

/** What of the call a relayed stream needs to settle it (pipeline/call.ts). */
export interface StreamSettler {
  readonly clientGone: boolean;
  toClientError(error: unknown): GatewayError;
  settleStream(outcome: { status: number; errorCode: string | null } | undefined, usage: TokenUsage): void;
}

/** The stream `Call.relayEvents` returns: the source's batches, observed, the request settled once when it is over. */
export class RelayedEvents<E> implements EventBatches<E> {
  private over = false;
  /** What the request was charged, once the stream is over (ended, failed or abandoned). */
  settledUsage: TokenUsage = ZERO_USAGE;

  constructor(
    private readonly call: StreamSettler,
    private readonly source: EventBatches<E>,
    private readonly usage: () => TokenUsage,
    private readonly observe: ((event: E) => void) | undefined,
    private readonly failure: ((error: unknown) => unknown) | undefined,
  ) {}

  async nextBatch(): Promise<readonly E[] | undefined> {
    if (this.over) return undefined;
    let batch: readonly E[] | undefined;
    try {
      batch = await this.source.nextBatch();
    } catch (error) {
      throw this.fail(error);
    }
    if (batch === undefined) {
      this.end(ANSWERED);
      return undefined;
    }
    const observe = this.observe;
    try {
      if (observe) for (const event of batch) observe(event);
    } catch (error) {
      // What the observer refused (an answer past its bounds) fails the stream as the upstream's failure would.
      this.source.cancel();
      throw this.fail(error);
    }
    return batch;
  }

  cancel(): void {
    if (this.over) return;
    this.source.cancel();
    this.end(undefined);
  }

  private fail(error: unknown): GatewayError {
    const call = this.call;
    const clientError = call.toClientError(this.failure ? this.failure(error) : error);
    this.end(call.clientGone ? CLIENT_CLOSED : { status: clientError.status, errorCode: clientError.code });
    return clientError;
  }

  [Symbol.asyncIterator](): AsyncIterator<E> {
    return eventsOf(this);
  }

  private end(outcome: { status: number; errorCode: string | null } | undefined): void {
    this.over = true;
    this.settledUsage = this.usage();
    this.call.settleStream(outcome, this.settledUsage);
  }
}
