// What a reservation is and which month a spend belongs to: shared by the ledger's reserving half
// (budget-ledger.ts) and its settling half (ledger-settlement.ts).

export interface Reservation {
  id: string;
  apiKeyId: string;
  month: string;
  /** What the reservation holds now: the admission's worst case, grown by `extend` for each further call. */
  amountMicroUsd: number;
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
