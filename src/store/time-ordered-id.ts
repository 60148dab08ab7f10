import { randomFillSync } from 'node:crypto';

const RANDOM_POOL = Buffer.allocUnsafe(4096);
let randomOffset = RANDOM_POOL.length;
const RANDOM_BYTES = 10;
// The events of a request, and the outbox rows of a batch, share one time: its hex is reused.
let prefixTime = -1;
let timePrefix = '';

/**
 * 32 hex digits: the time in milliseconds (12), then 80 random bits (20). Rows keyed by these ids
 * land at the right edge of their indexes (collected_events, event_deliveries, warehouse_events)
 * instead of on a random page each, and a random page per row is most of what an insert costs once
 * an index outgrows SQLite's page cache. The random part keeps the ids unguessable: a client cannot
 * take a future server-generated id of a project by posting an event with that id first.
 */
export function timeOrderedId(now: number): string {
  if (randomOffset + RANDOM_BYTES > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    randomOffset = 0;
  }
  const random = RANDOM_POOL.toString('hex', randomOffset, (randomOffset += RANDOM_BYTES));
  if (now !== prefixTime) {
    prefixTime = now;
    timePrefix = now.toString(16).padStart(12, '0');
  }
  return timePrefix + random;
}
