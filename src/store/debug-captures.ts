import type { Store } from './database.js';
import type { DebugCapturesTable } from './schema.js';
import { timeOrderedId } from './time-ordered-id.js';

/** A captured request as the pipeline hands it over: its three parts already redacted, capped and serialised. */
export interface NewDebugCapture {
  organizationId: string;
  apiKeyId: string;
  requestId: string;
  createdAt: number;
  endpoint: string;
  model: string | null;
  statusCode: number;
  received: string;
  upstream: string;
  answer: string;
}

export type DebugCaptureRow = DebugCapturesTable;
/** A row without its three parts, for lists. */
export type DebugCaptureSummary = Omit<DebugCaptureRow, 'received' | 'upstream' | 'answer'>;

const SUMMARY_COLUMNS = [
  'id',
  'organization_id',
  'api_key_id',
  'request_id',
  'created_at',
  'endpoint',
  'model',
  'status_code',
  'bytes',
] as const;

/**
 * Writes one capture, then deletes the key's oldest beyond `perKeyCap`: a key left capturing
 * under heavy traffic holds at most that many rows whatever the retention.
 */
export async function insertDebugCapture(store: Store, capture: NewDebugCapture, perKeyCap: number): Promise<void> {
  const bytes = capture.received.length + capture.upstream.length + capture.answer.length;
  await store.db
    .insertInto('debug_captures')
    .values({
      id: timeOrderedId(capture.createdAt),
      organization_id: capture.organizationId,
      api_key_id: capture.apiKeyId,
      request_id: capture.requestId,
      created_at: capture.createdAt,
      endpoint: capture.endpoint,
      model: capture.model,
      status_code: capture.statusCode,
      received: capture.received,
      upstream: capture.upstream,
      answer: capture.answer,
      bytes,
    })
    .execute();
  const oldestKept = await store.db
    .selectFrom('debug_captures')
    .select('id')
    .where('organization_id', '=', capture.organizationId)
    .where('api_key_id', '=', capture.apiKeyId)
    .orderBy('id', 'desc')
    .offset(perKeyCap - 1)
    .limit(1)
    .executeTakeFirst();
  if (!oldestKept) return;
  await store.db
    .deleteFrom('debug_captures')
    .where('organization_id', '=', capture.organizationId)
    .where('api_key_id', '=', capture.apiKeyId)
    .where('id', '<', oldestKept.id)
    .execute();
}

/** A page of an organization's captures (one key's when given), newest first; `startingAfter` is the previous page's last id. */
export async function debugCapturePage(
  store: Store,
  filter: { organizationId: string; apiKeyId?: string | undefined },
  limit: number,
  startingAfter?: string,
): Promise<{ rows: DebugCaptureSummary[]; hasMore: boolean }> {
  let query = store.db
    .selectFrom('debug_captures')
    .select(SUMMARY_COLUMNS)
    .where('organization_id', '=', filter.organizationId);
  if (filter.apiKeyId !== undefined) query = query.where('api_key_id', '=', filter.apiKeyId);
  if (startingAfter !== undefined) query = query.where('id', '<', startingAfter);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** One capture of the organization, or undefined (another organization's is not found). */
export async function debugCaptureOf(
  store: Store,
  organizationId: string,
  id: string,
): Promise<DebugCaptureRow | undefined> {
  return store.db
    .selectFrom('debug_captures')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Deletes up to `limit` captures created before `cutoff` (ms), oldest first; returns how many went. */
export async function deleteDebugCapturesBefore(store: Store, cutoff: number, limit: number): Promise<number> {
  const result = await store.db
    .deleteFrom('debug_captures')
    .where('id', 'in', (eb) =>
      eb.selectFrom('debug_captures').select('id').where('created_at', '<', cutoff).orderBy('created_at').limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Turns a key's capture on until `until` (ms) or off (null); false when the organization has no such live key. */
export async function setDebugCaptureUntil(
  store: Store,
  organizationId: string,
  apiKeyId: string,
  until: number | null,
): Promise<boolean> {
  const result = await store.db
    .updateTable('api_keys')
    .set({ debug_capture_until: until, updated_at: Date.now() })
    .where('organization_id', '=', organizationId)
    .where('id', '=', apiKeyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
