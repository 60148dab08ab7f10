// What a reservation is, which month a spend belongs to and which limit windows it holds room in:
// shared by the ledger's reserving half (budget-ledger.ts) and its settling half (ledger-settlement.ts).
import type { SpendPeriod } from './windows.js';

export type LimitSubjectKind = 'key' | 'member' | 'group';

/** One window of one spend limit that applies to a request (docs/limits.md). */
export interface SpendWindow {
  limitId: string;
  subject: { kind: LimitSubjectKind; id: string };
  period: SpendPeriod;
  /** ms; 0 for a lifetime window. */
  windowStart: number;
  /** ms; Infinity for a lifetime window. */
  windowEnd: number;
  limitMicroUsd: number;
}

/** What a request's reservation is held against: the key's monthly ceiling (null: none) and its limits' windows. */
export interface SpendBounds {
  ceilingMicroUsd: number | null;
  windows: readonly SpendWindow[];
}

export interface Reservation {
  id: string;
  apiKeyId: string;
  month: string;
  /** What the reservation holds now: the admission's worst case, grown by `extend` for each further call. */
  amountMicroUsd: number;
  /** The limit windows it holds the same amount in, besides the key's month (sorted by limit id: the lock order). */
  windows?: readonly SpendWindow[];
  /** Set once it is settled (by the usage writer, with the request's row, or by `settle`): the ledger stops renewing it. */
  settled?: boolean;
}

/** The calendar month (UTC) last asked for, with its bounds: nearly every call falls in it. */
let lastMonth = { start: 0, end: 0, label: '' };

export function monthOf(ms: number): string {
  if (ms >= lastMonth.start && ms < lastMonth.end) return lastMonth.label;
  const date = new Date(ms);
  const label = date.toISOString().slice(0, 7);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  lastMonth = { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1), label };
  return label;
}

/** The windows in lock order (limit id), so two transactions never wait on each other's rows. */
export function inLockOrder(windows: readonly SpendWindow[]): SpendWindow[] {
  return [...windows].sort((a, b) => (a.limitId < b.limitId ? -1 : a.limitId > b.limitId ? 1 : 0));
}

/** The `limit_windows` column of a reservation row: `[[limitId, windowStart], …]`, or null. */
export function windowsColumn(windows: readonly SpendWindow[] | undefined): string | null {
  if (!windows || windows.length === 0) return null;
  return JSON.stringify(windows.map((w) => [w.limitId, w.windowStart]));
}

/** Reads the `limit_windows` column back (the sweeper releases what a dead process held). */
export function parseWindowsColumn(column: string | null | undefined): Array<[string, number]> {
  if (!column) return [];
  const parsed = JSON.parse(column) as unknown;
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (entry): entry is [string, number] =>
      Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number',
  );
}
