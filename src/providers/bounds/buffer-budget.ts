import { UpstreamError } from '../types.js';
import { upstreamLimits } from './upstream-limits.js';

/**
 * Bytes an account holds without drawing on the shared budget: a well-behaved stream's pending
 * event and a short answer's text stay below it, so hostile streams that exhaust the budget do
 * not fail their neighbours. The concurrency limit bounds how many accounts exist at once.
 */
export const FREE_BYTES_PER_ACCOUNT = 64 * 1024;

/** Bytes charged to the budget by every open account of the process. */
let chargedBytes = 0;

/** What every open account has drawn from the process's budget (tests, metrics). */
export function bufferedUpstreamBytes(): number {
  return chargedBytes;
}

/**
 * What one reader of upstream answers holds (an SSE decoder's unfinished event, a JSON answer
 * read so far, the text kept of a stream), drawn from one budget for the whole process
 * (`bufferedBytes`). Growing past the budget throws; the request fails rather than the process.
 * `release` returns everything and closes the account: whatever it holds afterwards is no longer
 * charged, so an account forgotten after its request ended cannot leak budget.
 */
export class BufferAccount {
  private held = 0;
  private charged = 0;
  private closed = false;

  /** Holds `bytes` now (replaces what was held). */
  hold(bytes: number): void {
    this.held = bytes;
    this.charge();
  }

  grow(bytes: number): void {
    this.held += bytes;
    this.charge();
  }

  release(): void {
    chargedBytes -= this.charged;
    this.charged = 0;
    this.held = 0;
    this.closed = true;
  }

  private charge(): void {
    if (this.closed) return;
    const wanted = Math.max(0, this.held - FREE_BYTES_PER_ACCOUNT);
    const more = wanted - this.charged;
    if (more > 0 && chargedBytes + more > upstreamLimits().bufferedBytes) throw budgetExhausted();
    chargedBytes += more;
    this.charged = wanted;
  }
}

function budgetExhausted(): UpstreamError {
  const { bufferedBytes } = upstreamLimits();
  return new UpstreamError(
    `the gateway already holds its limit of ${bufferedBytes} bytes of upstream answers; retry shortly`,
    { status: null, retryable: false, retryAfterMs: 1000, kind: 'oversized' },
  );
}
