import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import { deleteDebugCapturesBefore } from '../store/debug-captures.js';
import { BatchedRetention } from './batched-retention.js';

/** Debug captures older than `retentionDays` are deleted every hour (docs/debug-capture.md, "Retention"). */
export class DebugCaptureRetention extends BatchedRetention {
  constructor(store: Store, retentionDays: number, logger: Logger, now: () => number = Date.now) {
    super(
      'debug captures',
      (cutoff, limit) => deleteDebugCapturesBefore(store, cutoff, limit),
      retentionDays,
      logger,
      now,
    );
  }
}
