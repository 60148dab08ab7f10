import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Dialect, Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { UsageRecord } from './usage-record.js';
import { LedgerSettlement, type Reservation, type SpendSettlement } from '../limits/budget-ledger.js';

interface QueuedRow {
  record: UsageRecord;
  /** True when no budget reservation covers this request, so its cost is added to the key's spend here. */
  addSpend: boolean;
  /** Settled in the same transaction as the row: the row and the key's spend can never disagree. */
  reservation: Reservation | undefined;
  /** performance.now() when queued. */
  queuedAt: number;
  /** Resolves the writer's promise: at commit, or when the row has waited `maxWaitMs`. */
  release: () => void;
  released: boolean;
}

const MAX_BATCH = 500;
/** Past this, a caller waiting for its row is let go and the row stays queued (the database is slow or away). */
export const MAX_COMMIT_WAIT_MS = 2_000;
const RETRY_AFTER_FAILURE_MS = 500;
/** Beyond this many unwritten rows (database away), new rows are refused rather than growing memory. */
const MAX_PENDING = 100_000;

/**
 * Group commit for usage rows. `write` queues a row and returns a promise that resolves once the
 * row is committed, or after `maxWaitMs` if the database is slow or away (the row stays queued). Rows that arrive while a batch is being written go into the next batch, so
 * under load one INSERT carries many rows, and when idle a row is written at once (next tick).
 * Callers await it before completing their response, so a request whose answer reached the
 * client has its row even if the process is killed right after. A failed batch is put back and
 * retried: a database outage delays rows (and the callers, up to their own wait limit) instead
 * of losing them.
 */
export class UsageWriter {
  private pending: QueuedRow[] = [];
  private scheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<boolean> | undefined;
  /** The batch being written, whose rows still count as waiting. */
  private writing: QueuedRow[] = [];
  /** One timer for every waiting row's deadline, instead of one per row. */
  private deadlineTimer: NodeJS.Timeout | undefined;
  private dropped = 0;
  private readonly sql: UsageSql;
  /** The budget ledger settles the batch's spend and reservations in the batch's transaction. */
  private readonly ledger: LedgerSettlement;
  private sqliteCommit: SQLite.Transaction<(rows: QueuedRow[]) => void> | undefined;
  /** Told of each committed batch, after its callers are released (alert evaluation: docs/alerts.md). */
  private committedListener: ((records: readonly UsageRecord[]) => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly maxWaitMs = MAX_COMMIT_WAIT_MS,
  ) {
    this.sql = new UsageSql(store.dialect);
    this.ledger = new LedgerSettlement(store.dialect);
  }

  /**
   * Queues a row. Its cost is added to the key's monthly spend in the same transaction: either
   * by settling `reservation` (held reserve released, actual cost added) or, for keys without a
   * ceiling (`addSpend`), directly.
   */
  write(record: UsageRecord, addSpend: boolean, reservation?: Reservation): Promise<void> {
    if (this.pending.length >= MAX_PENDING) {
      this.dropped++;
      if (this.dropped % 1000 === 1) this.logger.error({ dropped: this.dropped }, 'usage queue full: rows dropped');
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const row: QueuedRow = {
        record,
        addSpend,
        reservation,
        queuedAt: performance.now(),
        released: false,
        release: () => {
          row.released = true;
          resolve();
        },
      };
      this.pending.push(row);
      this.schedule();
      this.deadlineTimer ??= setTimeout(() => this.releaseOverdue(), this.maxWaitMs).unref();
    });
  }

  /** Lets go of callers whose rows have waited `maxWaitMs`; re-arms for the oldest row still waiting. */
  private releaseOverdue(): void {
    this.deadlineTimer = undefined;
    const now = performance.now();
    let oldest = Infinity;
    for (const rows of [this.writing, this.pending]) {
      for (const row of rows) {
        if (row.released) continue;
        if (now - row.queuedAt >= this.maxWaitMs) row.release();
        else oldest = Math.min(oldest, row.queuedAt);
      }
    }
    if (oldest !== Infinity)
      this.deadlineTimer = setTimeout(() => this.releaseOverdue(), oldest + this.maxWaitMs - now).unref();
  }

  /** `listener` gets each committed batch's rows; it must not block (it runs on the commit path). */
  onCommitted(listener: (records: readonly UsageRecord[]) => void): void {
    this.committedListener = listener;
  }

  get queueDepth(): number {
    return this.pending.length;
  }

  /** Writes everything queued so far (a batch at a time); concurrent callers share each flush. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      this.writing = batch;
      this.flushing = this.insert(batch).finally(() => {
        this.flushing = undefined;
        this.writing = [];
      });
      const ok = await this.flushing;
      if (!ok) return;
    }
  }

  /** Flushes until the queue is empty or `deadlineMs` passes (shutdown). */
  async drain(deadlineMs = 10_000): Promise<void> {
    const until = Date.now() + deadlineMs;
    while (this.pending.length > 0 && Date.now() < until) {
      await this.flush();
      if (this.pending.length > 0) await new Promise((r) => setTimeout(r, 50));
    }
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    for (const row of this.pending) row.release();
    if (this.pending.length > 0)
      this.logger.error({ rows: this.pending.length }, 'usage rows could not be written before shutdown');
  }

  private schedule(): void {
    if (this.scheduled || this.retryTimer) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Rows and the spend they add go in one transaction, so spend never counts a row twice or misses one. */
  private async insert(batch: QueuedRow[]): Promise<boolean> {
    try {
      const sqlite = this.store.sqlite;
      if (sqlite && !sqlite.inTransaction) this.commitSynchronously(sqlite, batch);
      else await this.store.db.transaction().execute((trx) => this.commitInTransaction(trx, batch));
      for (const row of batch) {
        if (row.reservation) row.reservation.settled = true;
        row.release();
      }
      this.tellCommitted(batch);
      return true;
    } catch (error) {
      this.logger.warn({ err: error, rows: batch.length }, 'usage batch not written; will retry');
      this.pending.unshift(...batch);
      this.retryTimer ??= setTimeout(() => {
        this.retryTimer = undefined;
        void this.flush();
      }, RETRY_AFTER_FAILURE_MS);
      return false;
    }
  }

  private tellCommitted(batch: readonly QueuedRow[]): void {
    if (!this.committedListener) return;
    try {
      this.committedListener(batch.map((row) => row.record));
    } catch (error) {
      this.logger.warn({ err: error }, 'a listener of committed usage rows failed');
    }
  }

  /**
   * SQLite with no other transaction open on the connection: the whole batch in one synchronous
   * IMMEDIATE transaction, so no other code runs on the connection until it commits. A request
   * waits for its row before its last byte leaves, and at low concurrency Kysely's async
   * transaction (one promise chain per statement) cost ~100 µs a commit at c = 1; this, ~65 µs
   * (docs/decisions.md, "Usage commit").
   */
  private commitSynchronously(sqlite: SQLite.Database, batch: QueuedRow[]): void {
    if (!this.sqliteCommit) {
      // Statements prepared once: compiling the SQL again on every commit cost more than running it.
      const insert = sqlite.prepare(this.sql.insertRows(1));
      const settle = this.ledger.sqliteSettler(sqlite);
      this.sqliteCommit = sqlite.transaction((rows: QueuedRow[]) => {
        for (const { record } of rows) insert.run(usageValues(record));
        settle(settlementsOf(rows));
      });
    }
    this.sqliteCommit.immediate(batch);
  }

  /** PostgreSQL, or SQLite while a Kysely transaction holds the connection (this one waits behind it). */
  private async commitInTransaction(trx: Transaction<Database>, batch: QueuedRow[]): Promise<void> {
    for (let from = 0; from < batch.length; from += this.sql.rowsPerStatement) {
      const rows = batch.slice(from, from + this.sql.rowsPerStatement);
      await trx.executeQuery(
        CompiledQuery.raw(
          this.sql.insertRows(rows.length),
          rows.flatMap(({ record }) => usageValues(record)),
        ),
      );
    }
    await this.ledger.settleIn(trx, settlementsOf(batch));
  }
}

/**
 * What the batch adds to its keys' spend: each row's cost, settling the reservation that covered
 * it, or added directly for a key without a ceiling (`addSpend`); other rows add nothing.
 */
function settlementsOf(batch: readonly QueuedRow[]): SpendSettlement[] {
  const settlements: SpendSettlement[] = [];
  for (const { record, addSpend, reservation } of batch) {
    if (reservation) settlements.push({ reservation, costMicroUsd: record.cost_micro_usd });
    else if (addSpend)
      settlements.push({ apiKeyId: record.api_key_id, at: record.created_at, costMicroUsd: record.cost_micro_usd });
  }
  return settlements;
}

const USAGE_COLUMNS = [
  'id',
  'request_id',
  'created_at',
  'organization_id',
  'api_key_id',
  'model',
  'provider',
  'upstream_model',
  'endpoint',
  'input_tokens',
  'cached_input_tokens',
  'cache_creation_input_tokens',
  'output_tokens',
  'reasoning_tokens',
  'uncompressed_input_tokens',
  'compression_savings_micro_usd',
  'cost_micro_usd',
  'tags',
  'status_code',
  'error_code',
  'latency_ms',
  'stream',
  'model_unlisted',
  'session_id',
  'agent',
  'compression_strategies',
  'member_id',
] as const satisfies ReadonlyArray<keyof UsageRecord>;

function usageValues(record: UsageRecord): unknown[] {
  // Optional members are written as their default: model_unlisted 0, compression_savings_micro_usd NULL.
  return USAGE_COLUMNS.map((column) =>
    column === 'model_unlisted' ? (record.model_unlisted ?? 0) : (record[column] ?? null),
  );
}

/**
 * The writer's SQL, written once per dialect and row count instead of being built and compiled
 * by Kysely for every batch: on the hot path that compilation cost more than SQLite's own work.
 */
class UsageSql {
  private readonly inserts: string[] = [];
  /**
   * Rows per INSERT. PostgreSQL: up to 32 (one round trip for many rows, and a bounded
   * number of distinct statements). SQLite: one, because a statement that writes several rows
   * inside a transaction needs a statement journal, a temporary file created and deleted each
   * time, while running a prepared single-row statement again costs next to nothing.
   */
  readonly rowsPerStatement: number;

  constructor(private readonly dialect: Dialect) {
    this.rowsPerStatement = dialect === 'sqlite' ? 1 : 32;
  }

  insertRows(count: number): string {
    return (this.inserts[count] ??=
      `insert into usage_records (${USAGE_COLUMNS.join(', ')}) values ` +
      Array.from(
        { length: count },
        (_, row) => `(${this.params(row * USAGE_COLUMNS.length + 1, USAGE_COLUMNS.length)})`,
      ).join(', ') +
      ' on conflict (id) do nothing');
  }

  private param(n: number): string {
    return this.dialect === 'postgres' ? `$${n}` : '?';
  }

  private params(first: number, count: number): string {
    return Array.from({ length: count }, (_, i) => this.param(first + i)).join(', ');
  }
}
