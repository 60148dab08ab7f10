/**
 * A spend limit a settled request touched, as the windowed-limits engine reports it after the
 * request settles (issue 30 item 3); `evaluateAlerts` takes these.
 */
export interface WatchedLimit {
  limitId: string;
  subject: { kind: 'key' | 'member' | 'group'; id: string };
  window: 'daily' | 'monthly' | 'lifetime';
  /** Start of the window the spend belongs to, ms since the epoch (UTC); 0 for a lifetime window. */
  windowStart: number;
  limitMicroUsd: number;
  spentMicroUsd: number;
}

/** One amount against its limit in one window: what a rule's thresholds are compared with. */
export interface SpendObservation {
  /** `organization`, `key:<id>` or `limit:<id>`: part of what makes a firing unique. */
  subject: string;
  window: 'daily' | 'monthly' | 'lifetime';
  windowStart: number;
  windowEnd: number | null;
  limitMicroUsd: number;
  spentMicroUsd: number;
}

const DAY_MS = 86_400_000;

/** The UTC day or month holding `at`, or the lifetime window (start 0, no end). */
export function windowAround(window: SpendObservation['window'], at: number): { start: number; end: number | null } {
  if (window === 'lifetime') return { start: 0, end: null };
  if (window === 'daily') {
    const start = Math.floor(at / DAY_MS) * DAY_MS;
    return { start, end: start + DAY_MS };
  }
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
}

/** A watched limit as an observation: its window's end follows from its start. */
export function observationOfLimit(limit: WatchedLimit): SpendObservation {
  return {
    subject: `limit:${limit.limitId}`,
    window: limit.window,
    windowStart: limit.windowStart,
    windowEnd: limit.window === 'lifetime' ? null : windowAround(limit.window, limit.windowStart).end,
    limitMicroUsd: limit.limitMicroUsd,
    spentMicroUsd: limit.spentMicroUsd,
  };
}
