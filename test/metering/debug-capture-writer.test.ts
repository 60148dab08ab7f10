import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { captureRow, DebugCaptureWriter, type CapturedRequest } from '../../src/metering/debug-capture-writer.js';
import { DebugCaptureRetention } from '../../src/metering/debug-capture-retention.js';
import { clipForQueue } from '../../src/metering/capture-redaction.js';
import { insertDebugCapture, debugCapturePage } from '../../src/store/debug-captures.js';
import { storeKinds } from '../support/gateway-harness.js';
import { freshStore } from '../support/fresh-store.js';

const DAY_MS = 86_400_000;
const GATEWAY_KEY = `gw-${'A'.repeat(43)}`;
const PROVIDER_KEY = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';

function capture(overrides: Partial<CapturedRequest> = {}): CapturedRequest {
  return {
    organizationId: 'org_capture',
    apiKeyId: 'key_capture',
    requestId: 'req-1',
    createdAt: Date.now(),
    endpoint: '/v1/chat/completions',
    model: 'openai/gpt-4o-mini',
    statusCode: 200,
    errorCode: null,
    received: {
      headers: {
        authorization: `Bearer ${GATEWAY_KEY}`,
        'x-api-key': GATEWAY_KEY,
        cookie: 'session=abc',
        'x-custom-token': 'opaque-value',
        'x-note': `paste ${PROVIDER_KEY} here`,
        'user-agent': 'claude-cli/1.0.83',
        connection: 'keep-alive',
      },
      body: { text: JSON.stringify({ messages: [{ role: 'user', content: `my key is ${PROVIDER_KEY}` }] }) },
    },
    upstream: [
      {
        providerId: 'anthropic',
        upstreamModel: 'claude',
        url: 'https://api.anthropic.com/v1/messages',
        headers: { 'x-api-key': PROVIDER_KEY, 'anthropic-version': '2023-06-01' },
        body: { text: '{"messages":[]}' },
        startedAt: Date.now(),
      },
    ],
    answer: { kind: 'json', body: { text: '{"ok":true}' } },
    ...overrides,
  };
}

describe('a debug capture as stored', () => {
  it('keeps no credential: secret headers by name, key-like values anywhere', () => {
    const row = captureRow(capture(), 1024 * 1024);
    const stored = row.received + row.upstream + row.answer;
    assert.ok(!stored.includes(GATEWAY_KEY), 'gateway key');
    assert.ok(!stored.includes(PROVIDER_KEY), 'provider key');
    assert.ok(!stored.includes('session=abc'), 'cookie');
    assert.ok(!stored.includes('opaque-value'), 'a header named like a token');
    const received = JSON.parse(row.received);
    assert.equal(received.headers.authorization, '[redacted]');
    assert.equal(received.headers['user-agent'], 'claude-cli/1.0.83', 'other headers are kept');
    assert.equal(received.headers.connection, undefined, 'connection headers are not');
    assert.match(received.body.text, /my key is \[redacted\]/);
    assert.equal(JSON.parse(row.upstream).attempts[0].headers['anthropic-version'], '2023-06-01');
  });

  it('cuts each part at the cap with a marker and its whole size', () => {
    const big = JSON.stringify({ messages: [{ role: 'user', content: 'é'.repeat(10_000) }] });
    const row = captureRow(
      capture({
        received: { headers: {}, body: { text: big } },
        answer: { kind: 'stream', body: { text: 'x'.repeat(2_000), wholeBytes: 7_000 } },
      }),
      2_048,
    );
    const body = JSON.parse(row.received).body;
    assert.equal(body.truncated_from_bytes, Buffer.byteLength(big));
    assert.match(body.text, /…\[truncated: 2048 of \d+ bytes kept\]$/);
    assert.ok(Buffer.byteLength(body.text) < 2_048 + 64);
    const answer = JSON.parse(row.answer);
    assert.equal(answer.body.truncated_from_bytes, 7_000, 'what the core already left out is counted');
  });

  it('a part clipped before queueing is stored cut at the cap, with the size of the whole', () => {
    const whole = `${'a'.repeat(3_000)} ${PROVIDER_KEY}`;
    const clipped = clipForQueue(whole, 1_024);
    assert.ok(clipped.text.length < 1_400, 'the queue holds little more than the cap');
    const row = captureRow(capture({ received: { headers: {}, body: clipped } }), 1_024);
    const body = JSON.parse(row.received).body;
    assert.equal(body.truncated_from_bytes, Buffer.byteLength(whole));
    assert.match(body.text, /^a{1024}\n…\[truncated: 1024 of 3\d{3} bytes kept\]$/);
    assert.deepEqual(clipForQueue('small', 1_024), { text: 'small' });
  });
});

for (const kind of storeKinds()) {
  describe(`debug capture storage (${kind})`, () => {
    const fixture = freshStore(kind, 'captures');
    const logger = pino({ level: 'silent' });

    it('a full queue drops new captures and counts them; the queued ones are written', async () => {
      const writer = new DebugCaptureWriter(fixture.store, logger, {
        queueSize: 2,
        maxPartBytes: 4096,
        maxPerKey: 100,
      });
      const offered = [1, 2, 3, 4].map((i) => writer.offer(capture({ apiKeyId: 'key_queue', requestId: `q${i}` })));
      assert.deepEqual(offered, [true, true, false, false]);
      assert.equal(writer.dropped, 2);
      await writer.flush();
      const page = await debugCapturePage(fixture.store, { organizationId: 'org_capture', apiKeyId: 'key_queue' }, 10);
      assert.deepEqual(page.rows.map((r) => r.request_id).sort(), ['q1', 'q2']);
    });

    it('a key keeps at most its cap of captures, the newest', async () => {
      const start = Date.now();
      for (let i = 0; i < 7; i++)
        await insertDebugCapture(
          fixture.store,
          captureRow(capture({ apiKeyId: 'key_cap', requestId: `c${i}`, createdAt: start + i }), 4096),
          3,
        );
      const page = await debugCapturePage(fixture.store, { organizationId: 'org_capture', apiKeyId: 'key_cap' }, 10);
      assert.deepEqual(
        page.rows.map((r) => r.request_id),
        ['c6', 'c5', 'c4'],
      );
    });

    it('the retention sweep deletes captures older than the retention and keeps the rest', async () => {
      const now = Date.UTC(2026, 5, 1);
      const at = (requestId: string, createdAt: number) =>
        insertDebugCapture(
          fixture.store,
          captureRow(capture({ apiKeyId: 'key_age', requestId, createdAt }), 4096),
          10_000,
        );
      for (let i = 0; i < 5; i++) await at(`old${i}`, now - 8 * DAY_MS - i);
      await at('recent', now - 6 * DAY_MS);
      const sweeper = new DebugCaptureRetention(fixture.store, 7, logger, () => now);
      assert.equal(await sweeper.sweep(), 5);
      const page = await debugCapturePage(fixture.store, { organizationId: 'org_capture', apiKeyId: 'key_age' }, 10);
      assert.deepEqual(
        page.rows.map((r) => r.request_id),
        ['recent'],
      );
    });
  });
}
