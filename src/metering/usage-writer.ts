import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Dialect, Store } from '../store/database.js';
import type { Database } from '../store/schema.js';
import type { UsageRecord } from './usage-record.js';
import { monthOf, type Reservation } from '../limits/budget-ledger.js';

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
  private sqliteCommit: SQLite.Transaction<(rows: QueuedRow[]) => void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly maxWaitMs = MAX_COMMIT_WAIT_MS,
  ) {
    this.sql = new UsageSql(store.dialect);
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
      const addSpend = sqlite.prepare(this.sql.addSpend);
      const deletes = new Map<number, SQLite.Statement>();
      const deleteReservations = (count: number): SQLite.Statement => {
        let statement = deletes.get(count);
        if (!statement) deletes.set(count, (statement = sqlite.prepare(this.sql.deleteReservations(count))));
        return statement;
      };
      this.sqliteCommit = sqlite.transaction((rows: QueuedRow[]) => {
        for (const { record } of rows) insert.run(usageValues(record));
        const stillHeld = new Set<string>();
        for (const ids of reservationIdChunks(rows, this.sql.rowsPerStatement)) {
          for (const { id } of deleteReservations(ids.length).all(ids) as Array<{ id: string }>) stillHeld.add(id);
        }
        for (const delta of spendDeltas(rows, stillHeld)) addSpend.run(spendParameters(delta));
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
    const stillHeld = new Set<string>();
    for (const ids of reservationIdChunks(batch, this.sql.rowsPerStatement)) {
      const removed = await trx.executeQuery<{ id: string }>(
        CompiledQuery.raw(this.sql.deleteReservations(ids.length), ids),
      );
      for (const { id } of removed.rows) stillHeld.add(id);
    }
    for (const delta of spendDeltas(batch, stillHeld))
      await trx.executeQuery(CompiledQuery.raw(this.sql.addSpend, spendParameters(delta)));
  }
}

/** The ids of the batch's reservations, in chunks of at most `size` (one DELETE … RETURNING each). */
function* reservationIdChunks(batch: QueuedRow[], size: number): Generator<string[]> {
  const ids = batch.flatMap((row) => (row.reservation ? [row.reservation.id] : []));
  for (let from = 0; from < ids.length; from += size) yield ids.slice(from, from + size);
}

/**
 * What the batch adds to each key's monthly spend: the cost of every row that pays (settled
 * reservations and keys without a ceiling), and the reserve each settled reservation held.
 * `stillHeld` are the reservations this transaction deleted; one already released by the
 * sweeper held nothing any more, so only its cost counts.
 */
function spendDeltas(batch: QueuedRow[], stillHeld: ReadonlySet<string>): SpendDelta[] {
  const spend = new Map<string, SpendDelta>();
  const add = (apiKeyId: string, month: string, spent: number, held: number) => {
    const id = `${apiKeyId}|${month}`;
    const entry = spend.get(id);
    if (entry) {
      entry.spent += spent;
      entry.held += held;
    } else spend.set(id, { apiKeyId, month, spent, held });
  };
  for (const { record, addSpend, reservation } of batch) {
    if (reservation)
      add(
        reservation.apiKeyId,
        reservation.month,
        record.cost_micro_usd,
        stillHeld.has(reservation.id) ? reservation.amountMicroUsd : 0,
      );
    else if (addSpend && record.cost_micro_usd > 0)
      add(record.api_key_id, monthOf(record.created_at), record.cost_micro_usd, 0);
  }
  return [...spend.values()].filter((delta) => delta.spent !== 0 || delta.held !== 0);
}

/** Parameters of `UsageSql.addSpend`: api_key_id, month, spent (insert), spent (update), held. */
function spendParameters({ apiKeyId, month, spent, held }: SpendDelta): unknown[] {
  return [apiKeyId, month, spent, spent, held];
}

interface SpendDelta {
  apiKeyId: string;
  month: string;
  spent: number;
  held: number;
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
  private readonly deletes: string[] = [];
  readonly addSpend: string;
  /**
   * Rows per INSERT or DELETE. PostgreSQL: up to 32 (one round trip for many rows, and a bounded
   * number of distinct statements). SQLite: one, because a statement that writes several rows
   * inside a transaction needs a statement journal, a temporary file created and deleted each
   * time, while running a prepared single-row statement again costs next to nothing.
   */
  readonly rowsPerStatement: number;

  constructor(private readonly dialect: Dialect) {
    this.rowsPerStatement = dialect === 'sqlite' ? 1 : 32;
    // Parameters: api_key_id, month, spent (insert), spent (update), held.
    this.addSpend =
      `insert into key_spend (api_key_id, month, spent_micro_usd, reserved_micro_usd) values (${this.params(1, 3)}, 0) ` +
      `on conflict (api_key_id, month) do update set spent_micro_usd = key_spend.spent_micro_usd + ${this.param(4)}, ` +
      `reserved_micro_usd = key_spend.reserved_micro_usd - ${this.param(5)}`;
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

  /** Deletes reservations by id and returns the ids that were still there. */
  deleteReservations(count: number): string {
    return (this.deletes[count] ??=
      `delete from budget_reservations where id in (${this.params(1, count)}) returning id`);
  }

  private param(n: number): string {
    return this.dialect === 'postgres' ? `$${n}` : '?';
  }

  private params(first: number, count: number): string {
    return Array.from({ length: count }, (_, i) => this.param(first + i)).join(', ');
  }
}
