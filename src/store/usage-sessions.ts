import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Store } from './database.js';
import type { Database } from './schema.js';
import { SAVINGS_SUMS, savingsSumsOf, type SavingsCell } from './usage-savings.js';

export interface SessionFilter {
  organizationId: string;
  apiKeyId?: string;
  /** The member the rows are attributed to (usage_records.member_id). */
  memberId?: string;
  /** Agent name (`claude-cli`), any version. */
  agent?: string;
  /** Rows from this time on (ms, inclusive). */
  from?: number;
  /** Rows before this time (ms, exclusive). */
  to?: number;
}

/** One session's rows of one (model, key, member, agent), summed: priced per model by the caller. */
export type SessionCell = Omit<SavingsCell, 'bucket' | 'group'> & {
  sessionId: string;
  apiKeyId: string;
  memberId: string | null;
  agent: string | null;
  /** First request's start (created_at − latency), ms. */
  startedAt: number;
  /** Last request's end (created_at), ms. */
  endedAt: number;
};

export interface SessionPage {
  cells: SessionCell[];
  /** The page's session ids, newest start first. */
  sessionIds: string[];
  hasMore: boolean;
}

type Rows = SelectQueryBuilder<Database, 'usage_records', object>;

function filtered(store: Store, filter: SessionFilter): Rows {
  let query: Rows = store.db
    .selectFrom('usage_records')
    .where('organization_id', '=', filter.organizationId)
    .where('session_id', 'is not', null);
  if (filter.apiKeyId !== undefined) query = query.where('api_key_id', '=', filter.apiKeyId);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  if (filter.agent !== undefined) {
    const agent = filter.agent;
    // A prefix compare rather than LIKE, whose `_` is a wildcard (codex_cli_rs) and whose escaping differs by dialect.
    query = query.where((eb: ExpressionBuilder<Database, 'usage_records'>) =>
      eb.or([eb('agent', '=', agent), eb(sql<string>`substr(agent, 1, ${agent.length + 1})`, '=', `${agent}/`)]),
    );
  }
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
  return query;
}

const STARTED = sql<number>`min(created_at - latency_ms)`;

/**
 * A page of an organization's sessions, newest start first, then by id; `startingAfter` is the
 * last session id of the previous page. Sessions and their figures count only the rows that pass
 * the filter.
 */
export async function sessionPage(
  store: Store,
  filter: SessionFilter,
  limit: number,
  startingAfter?: string,
): Promise<SessionPage> {
  let page = filtered(store, filter)
    .select(['session_id', STARTED.as('started_at')])
    .groupBy('session_id');
  if (startingAfter !== undefined) {
    const cursor = await filtered(store, filter)
      .select(STARTED.as('started_at'))
      .where('session_id', '=', startingAfter)
      .executeTakeFirst();
    const start = cursor?.started_at;
    if (start === undefined || start === null) return { cells: [], sessionIds: [], hasMore: false };
    page = page.having((eb) =>
      eb.or([
        eb(STARTED, '<', Number(start)),
        eb.and([eb(STARTED, '=', Number(start)), eb('session_id', '<', startingAfter)]),
      ]),
    );
  }
  const ids = await page
    .orderBy(STARTED, 'desc')
    .orderBy('session_id', 'desc')
    .limit(limit + 1)
    .execute();
  const sessionIds = ids.slice(0, limit).map((row) => row.session_id!);
  if (sessionIds.length === 0) return { cells: [], sessionIds, hasMore: false };
  const cells = await sessionCells(filtered(store, filter).where('session_id', 'in', sessionIds));
  return { cells, sessionIds, hasMore: ids.length > limit };
}

async function sessionCells(rows: Rows): Promise<SessionCell[]> {
  const found = await rows
    .select([
      'session_id',
      'model',
      'api_key_id',
      'member_id',
      'agent',
      STARTED.as('started_at'),
      sql<number>`max(created_at)`.as('ended_at'),
      ...SAVINGS_SUMS,
    ])
    .groupBy(['session_id', 'model', 'api_key_id', 'member_id', 'agent'])
    .execute();
  return found.map((row) => ({
    sessionId: row.session_id!,
    model: row.model,
    apiKeyId: row.api_key_id,
    memberId: row.member_id ?? null,
    agent: row.agent ?? null,
    startedAt: Number(row.started_at),
    endedAt: Number(row.ended_at),
    ...savingsSumsOf(row),
  }));
}

/**
 * One session's rows in time order (the oldest first), each with its savings sums from the same
 * SQL as every other grouping (grouped by the row's own id); none when the organization has no
 * such session.
 */
export async function sessionRequests(store: Store, organizationId: string, sessionId: string) {
  const rows = await store.db
    .selectFrom('usage_records')
    .select([
      'id',
      'request_id',
      'created_at',
      'api_key_id',
      'model',
      'endpoint',
      'agent',
      'reasoning_tokens',
      'status_code',
      'error_code',
      'latency_ms',
      'stream',
      'member_id',
      'compression_strategies',
      ...SAVINGS_SUMS,
    ])
    .where('organization_id', '=', organizationId)
    .where('session_id', '=', sessionId)
    .groupBy('id')
    .orderBy('created_at')
    .orderBy('id')
    .limit(MAX_SESSION_REQUESTS + 1)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    requestId: row.request_id,
    createdAt: Number(row.created_at),
    apiKeyId: row.api_key_id,
    model: row.model,
    endpoint: row.endpoint,
    agent: row.agent ?? null,
    reasoningTokens: Number(row.reasoning_tokens),
    statusCode: Number(row.status_code),
    errorCode: row.error_code,
    latencyMs: Number(row.latency_ms),
    stream: Number(row.stream) === 1,
    memberId: row.member_id ?? null,
    strategies: row.compression_strategies ? row.compression_strategies.split(',') : [],
    ...savingsSumsOf(row),
  }));
}

/** The most requests one session's detail lists; a longer session says it is truncated. */
export const MAX_SESSION_REQUESTS = 5_000;

/** The session's figures over all its rows (the detail's header). */
export async function sessionCellsOf(store: Store, organizationId: string, sessionId: string): Promise<SessionCell[]> {
  return sessionCells(filtered(store, { organizationId }).where('session_id', '=', sessionId));
}
