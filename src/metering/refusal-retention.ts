import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { deleteFreeFailuresBefore } from '../store/usage-refusal-retention.js';
import { BatchedRetention } from './batched-retention.js';

/**
 * Bounds what refusals can store (docs/decisions.md, "Refused requests in the Logs page"): every
 * hour, usage rows of refused or failed requests that cost nothing and are older than
 * `retentionDays` are deleted, in batches (batched-retention.ts).
 */
export class RefusalRetention extends BatchedRetention {
  constructor(store: Store, retentionDays: number, logger: Logger, now: () => number = Date.now) {
    super(
      'refused requests',
      (cutoff, limit) => deleteFreeFailuresBefore(store, cutoff, limit),
      retentionDays,
      logger,
      now,
    );
  }
}
