/**
 * The clock limit windows and reservations are read on. The process's own clock, moved by
 * `shiftMs`: zero in production; a test sets it to run a gateway on tomorrow's window (docs/limits.md).
 */
export class LimitClock {
  shiftMs = 0;

  now(): number {
    return Date.now() + this.shiftMs;
  }
}
