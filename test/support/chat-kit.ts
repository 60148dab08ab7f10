import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { Agent, request, type Dispatcher } from 'undici';
import type { Store } from '../../src/store/database.js';
import type { UsageRecordsTable } from '../../src/store/schema.js';
import type { HttpResult } from './gateway-harness.js';

/**
 * Small helpers shared by the chat-completions route tests: polling instead of sleeping,
 * usage rows and key spend read straight from the store, the gateway error envelope, and a raw
 * HTTPS client that hands back the undici response so a test can read SSE at its own pace.
 */

/** Catalogue pricing used across the chat tests: $0.15 / $0.60 per MTok, cached reads $0.075. */
export const PRICING = { input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075 };

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  what?: string;
}

/** Polls `probe` until it returns something other than undefined/false/null. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  options: WaitOptions = {},
): Promise<T> {
  const { timeoutMs = 5_000, intervalMs = 20, what = 'condition' } = options;
  const until = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (performance.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(intervalMs);
  }
}

export type UsageRow = UsageRecordsTable;

export async function usageRowsByRequest(store: Store, requestId: string): Promise<UsageRow[]> {
  return store.db.selectFrom('usage_records').selectAll().where('request_id', '=', requestId).execute();
}

export async function usageRowsByKey(store: Store, apiKeyId: string): Promise<UsageRow[]> {
  return store.db
    .selectFrom('usage_records')
    .selectAll()
    .where('api_key_id', '=', apiKeyId)
    .orderBy('created_at')
    .execute();
}

/** Waits for the (batched) usage row of one request and checks there is exactly one. */
export async function usageRowOf(store: Store, requestId: string, timeoutMs = 5_000): Promise<UsageRow> {
  const rows = await waitFor(
    async () => {
      const found = await usageRowsByRequest(store, requestId);
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs, what: `usage row of ${requestId}` },
  );
  assert.equal(rows.length, 1, `exactly one usage row for ${requestId}`);
  return rows[0]!;
}

export async function keySpend(store: Store, apiKeyId: string): Promise<{ spent: number; reserved: number }> {
  const rows = await store.db
    .selectFrom('key_spend')
    .select(['spent_micro_usd', 'reserved_micro_usd'])
    .where('api_key_id', '=', apiKeyId)
    .execute();
  return {
    spent: rows.reduce((sum, r) => sum + Number(r.spent_micro_usd), 0),
    reserved: rows.reduce((sum, r) => sum + Number(r.reserved_micro_usd), 0),
  };
}

/** Asserts the gateway error envelope `{error: {message, type, code, param}}` and returns `error`. */
export function assertGatewayError(
  result: HttpResult,
  expected: { status: number; code: string; type?: string; param?: string | null | RegExp },
): Record<string, any> {
  assert.equal(result.status, expected.status, `status (body: ${result.text.slice(0, 300)})`);
  assert.ok(
    result.json && typeof result.json.error === 'object',
    `error envelope expected, got ${result.text.slice(0, 300)}`,
  );
  const error = result.json.error as Record<string, any>;
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.type, 'string');
  assert.ok('code' in error && 'param' in error, 'code and param are always present');
  assert.equal(error.code, expected.code);
  if (expected.type !== undefined) assert.equal(error.type, expected.type);
  if (expected.param instanceof RegExp) assert.match(String(error.param), expected.param);
  else if (expected.param !== undefined) assert.equal(error.param, expected.param);
  return error;
}

/** A port nothing listens on (bound, then closed): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Parses a complete SSE text (LF line endings, as the gateway writes them). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    if (!block.trim()) continue;
    const data: string[] = [];
    let event: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith('data: ')) data.push(line.slice(6));
      else if (line.startsWith('data:')) data.push(line.slice(5));
      else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
    events.push({ ...(event ? { event } : {}), data: data.join('\n') });
  }
  return events;
}

/** The JSON payloads of an SSE text, `[DONE]` kept as the string. */
export function sseData(text: string): Array<any> {
  return parseSse(text).map((e) => (e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data)));
}

/** Text of all content deltas in a chat.completion.chunk stream. */
export function streamedText(events: any[]): string {
  return events
    .filter((e) => e !== '[DONE]' && Array.isArray(e.choices))
    .map((e) => e.choices[0]?.delta?.content ?? '')
    .join('');
}

export interface RawClient {
  dispatcher: Agent;
  /** POSTs JSON to the gateway and returns the undici response unread. */
  post(
    path: string,
    body: unknown,
    init?: { token?: string; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

/** A raw HTTPS client trusting the harness's certificate; the caller reads (or does not read) the body. */
export function rawClient(baseUrl: string, ca: string): RawClient {
  const dispatcher = new Agent({ connect: { ca }, keepAliveTimeout: 1000 });
  return {
    dispatcher,
    post(path, body, init = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(init.headers ?? {}) };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      return request(baseUrl + path, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        dispatcher,
        ...(init.signal ? { signal: init.signal } : {}),
      });
    },
    // close() waits for requests still in flight (a stream a failed test never read): give them
    // a moment, then destroy.
    close: async () => {
      const closed = dispatcher.close();
      const timedOut = await Promise.race([closed.then(() => false), delay(1_000).then(() => true)]);
      if (timedOut) await dispatcher.destroy();
    },
  };
}

/** A response header as one string. */
export function header(
  result: { headers: Record<string, string | string[] | undefined> },
  name: string,
): string | undefined {
  const value = result.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
