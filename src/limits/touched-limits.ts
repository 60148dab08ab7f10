import { windowKey, type WindowLimits } from '../store/window-limits.js';
import type { Reservation, LimitSubjectKind, SpendWindow } from './reservation.js';
import type { KeyLimitDirectory } from './key-limits.js';
import type { SpendPeriod } from './windows.js';

/** One spend limit a settled request counted against, as the alerts read it. */
export interface TouchedLimit {
  limitId: string;
  subject: { kind: LimitSubjectKind; id: string };
  window: SpendPeriod;
  /** ms; 0 for a lifetime window. */
  windowStart: number;
  limitMicroUsd: number;
  /** What the window has spent, the request's settled cost included (reservations in flight excluded). */
  spentMicroUsd: number;
}

/**
 * The spend limits a request's reservation held room in, with what their windows have spent:
 * for the alerts (issue 30 item 4), to be called once the request is settled (its usage row
 * committed: `Call.settle` → the usage writer). A request without a reservation touched none.
 */
export async function touchedLimits(
  store: WindowLimits,
  reservation: Reservation | undefined,
): Promise<TouchedLimit[]> {
  return withSpend(store, reservation?.windows ?? []);
}

/**
 * The spend limits that apply now to each of `keys` (its own, its member's, its group's), with
 * what their current windows have spent: what the alerts watch after spend settled (issue 30
 * item 4). Each limit once, however many of the keys share it (a member's limit over its keys).
 */
export async function currentLimitsOf(
  directory: KeyLimitDirectory,
  store: WindowLimits,
  keys: ReadonlyArray<{ id: string; organizationId: string; memberId: string | null }>,
): Promise<TouchedLimit[]> {
  const windows = new Map<string, SpendWindow>();
  for (const key of keys)
    for (const window of directory.spendWindows(await directory.forKey(key)))
      windows.set(windowKey(window.limitId, window.windowStart), window);
  return withSpend(store, [...windows.values()]);
}

/** Each window as the alerts read it, with what it has spent (one read for all). */
async function withSpend(store: WindowLimits, windows: readonly SpendWindow[]): Promise<TouchedLimit[]> {
  if (windows.length === 0) return [];
  const spend = await store.windowSpend(windows);
  return windows.map((w) => ({
    limitId: w.limitId,
    subject: w.subject,
    window: w.period,
    windowStart: w.windowStart,
    limitMicroUsd: w.limitMicroUsd,
    spentMicroUsd: spend.get(windowKey(w.limitId, w.windowStart))?.spent ?? 0,
  }));
}
