// The windows a spend limit counts in (docs/limits.md, "Windows"): calendar days and months of
// the organization's clock (UTC moved by a fixed offset), and one lifetime window.

export type SpendPeriod = 'daily' | 'monthly' | 'lifetime';

export interface WindowBounds {
  /** ms since the epoch; 0 for the lifetime window. */
  start: number;
  /** ms since the epoch; Infinity for the lifetime window. */
  end: number;
}

const DAY_MS = 24 * 3600 * 1000;
/** UTC−12:00 to UTC+14:00, the offsets of the world's clocks. */
export const MIN_OFFSET_MINUTES = -720;
export const MAX_OFFSET_MINUTES = 840;

/**
 * The window of `period` that holds `now` on a clock `offsetMinutes` ahead of UTC: a day or a
 * calendar month of that clock, as UTC instants. A fixed offset: no daylight-saving changes.
 */
export function windowAt(period: SpendPeriod, now: number, offsetMinutes = 0): WindowBounds {
  if (period === 'lifetime') return { start: 0, end: Infinity };
  const shift = offsetMinutes * 60_000;
  const local = now + shift;
  if (period === 'daily') {
    const start = Math.floor(local / DAY_MS) * DAY_MS;
    return { start: start - shift, end: start + DAY_MS - shift };
  }
  const date = new Date(local);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return { start: Date.UTC(year, month, 1) - shift, end: Date.UTC(year, month + 1, 1) - shift };
}

/** Whole seconds from `now` to `end`, at least 1: a Retry-After value; undefined for a window that never ends. */
export function secondsUntil(end: number, now: number): number | undefined {
  if (!Number.isFinite(end)) return undefined;
  return Math.max(1, Math.ceil((end - now) / 1000));
}
