import { BufferAccount } from './buffer-budget.js';
import { answerTooLarge, upstreamLimits } from './upstream-limits.js';

/**
 * The size of the text one request keeps of its streamed answers (for metering an answer cut
 * short, and for the gateway-tool loop's calls): at most `keptTextBytes`, drawn from the
 * process's budget through `account`. Counted in UTF-16 code units, which is what V8 holds.
 */
export class KeptText {
  private size = 0;

  constructor(private readonly account: BufferAccount = new BufferAccount()) {}

  /** Counts `piece` as kept; throws (oversized) past the per-request limit or the process's budget. */
  add(piece: string): void {
    this.size += piece.length;
    const limit = upstreamLimits().keptTextBytes;
    if (this.size > limit) throw answerTooLarge('answer text kept for metering', limit);
    this.account.hold(this.size);
  }

  release(): void {
    this.account.release();
  }
}
