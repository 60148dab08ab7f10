import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, waitFor } from '../support/chat-kit.js';
import type { AccessFields } from '../../src/server/access-log.js';

/** Issue 27 row 7: a request the gateway refuses left no log line at any level. */
const MODEL = 'openai/gpt-4o-mini';

interface AccessLine extends AccessFields {
  log?: string;
  level: number;
  surface: string;
}

const INFO = 30;
const DEBUG = 20;

function capturingLogger(): { logger: pino.Logger; lines: AccessLine[]; text: string[] } {
  const lines: AccessLine[] = [];
  const text: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) {
        if (!line) continue;
        text.push(line);
        const parsed = JSON.parse(line) as AccessLine;
        if (parsed.log === 'access') lines.push(parsed);
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines, text };
}

function mockConfig(mock: MockUpstream) {
  return {
    providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
    models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-4o-mini-upstream' }], pricing: PRICING }],
    retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
  };
}

/** The one access line of a request id, once its response has closed. */
async function lineOf(lines: AccessLine[], reqId: string): Promise<AccessLine> {
  const line = await waitFor(() => lines.find((l) => l.reqId === reqId), { what: `access line of ${reqId}` });
  assert.equal(lines.filter((l) => l.reqId === reqId).length, 1, `exactly one access line for ${reqId}`);
  return line;
}

describe('access log: one line per request on every listener, refusals included (issue 27 row 7)', () => {
  let h: Harness;
  let mock: MockUpstream;
  let org: { id: string; token: string };
  let key: { id: string; key: string };
  let capped: { id: string; key: string };
  const captured = capturingLogger();

  before(async () => {
    mock = await startMockOpenAI();
    h = await startHarness({
      config: mockConfig(mock),
      env: { MOCK_OPENAI_KEY: 'sk-mock' },
      logger: captured.logger,
    });
    org = await h.organization();
    key = await h.createKey(org, { name: 'logged' });
    capped = await h.createKey(org, { name: 'capped', max_usage: 0 });
  });
  after(async () => {
    await h.stop();
    await mock.close();
  });

  const chat = (token: string | undefined, requestId: string, body: Record<string, unknown> = {}) =>
    h.gateway('POST', '/v1/chat/completions', {
      body: { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...body },
      ...(token ? { token } : {}),
      headers: { 'x-request-id': requestId },
    });

  it('a 400 is logged with its error code, the key id, the model asked for and no tokens', async () => {
    const refused = await chat(key.key, 'access-400', { max_tokens: 0 });
    assert.equal(refused.status, 400);
    const line = await lineOf(captured.lines, 'access-400');
    assert.equal(line.level, INFO);
    assert.equal(line.surface, 'gateway');
    assert.equal(line.method, 'POST');
    assert.equal(line.route, '/v1/chat/completions');
    assert.equal(line.status, 400);
    assert.equal(line.code, 'invalid_request');
    assert.equal(line.key, key.id);
    assert.equal(line.model, MODEL);
    assert.equal(line.provider, null);
    assert.equal(line.inputTokens, null);
    assert.ok(Number.isInteger(line.ms) && line.ms >= 0);
  });

  it('a 401 is logged with no key', async () => {
    const refused = await chat('sk-not-a-key', 'access-401');
    assert.equal(refused.status, 401);
    const line = await lineOf(captured.lines, 'access-401');
    assert.equal(line.status, 401);
    assert.equal(line.code, 'unauthorized');
    assert.equal(line.key, null);
  });

  it('a 429 of the key ceiling is logged with its code and the metered model and provider', async () => {
    const refused = await chat(capped.key, 'access-429');
    assert.equal(refused.status, 429);
    const line = await lineOf(captured.lines, 'access-429');
    assert.equal(line.status, 429);
    assert.equal(line.code, 'usage_limit_exceeded');
    assert.equal(line.key, capped.id);
    assert.equal(line.model, MODEL);
    assert.equal(line.provider, 'mock-openai');
    assert.equal(line.inputTokens, 0);
  });

  it('an answered request is logged with its provider and tokens, streamed or not', async () => {
    mock.setScenario({ usage: { inputTokens: 12, outputTokens: 7 } });
    const answered = await chat(key.key, 'access-200');
    assert.equal(answered.status, 200, answered.text);
    const line = await lineOf(captured.lines, 'access-200');
    assert.deepEqual(
      [line.status, line.code, line.key, line.model, line.provider, line.inputTokens, line.outputTokens],
      [200, null, key.id, MODEL, 'mock-openai', 12, 7],
    );
    const streamed = await chat(key.key, 'access-200-stream', { stream: true });
    assert.equal(streamed.status, 200);
    const streamLine = await lineOf(captured.lines, 'access-200-stream');
    assert.deepEqual([streamLine.status, streamLine.provider, streamLine.outputTokens], [200, 'mock-openai', 7]);
  });

  it('the console and the collector log their requests and refusals too', async () => {
    const listed = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, {
      token: org.token,
      headers: { 'x-request-id': 'access-console-200' },
    });
    assert.equal(listed.status, 200);
    const unauthenticated = await h.console('GET', `/v1/organizations/${org.id}/api_keys`, {
      headers: { 'x-request-id': 'access-console-401' },
    });
    assert.equal(unauthenticated.status, 401);
    const collected = await h.collector('POST', '/_gateway/event', {
      body: {},
      headers: { 'x-request-id': 'access-collector-404' },
    });
    assert.equal(collected.status, 404);

    const ok = await lineOf(captured.lines, 'access-console-200');
    assert.equal(ok.surface, 'console');
    assert.equal(ok.route, '/v1/organizations/:orgId/api_keys');
    assert.match(String(ok.key), /.+/, 'the console token’s id');
    const refused = await lineOf(captured.lines, 'access-console-401');
    assert.deepEqual(
      [refused.surface, refused.status, refused.code, refused.key],
      ['console', 401, 'Unauthorized', null],
    );
    const collector = await lineOf(captured.lines, 'access-collector-404');
    assert.deepEqual([collector.surface, collector.status, collector.code], ['collector', 404, 'Not Found']);
  });

  it('a metrics scrape is logged at debug', async () => {
    const scraped = await h.gateway('GET', '/metrics', { headers: { 'x-request-id': 'access-scrape' } });
    assert.equal(scraped.status, 200);
    assert.equal((await lineOf(captured.lines, 'access-scrape')).level, DEBUG);
  });

  it('never writes a key, a console token or an Authorization header', async () => {
    await lineOf(captured.lines, 'access-400');
    for (const text of captured.text) {
      assert.ok(!text.includes(key.key), 'a gateway key was logged');
      assert.ok(!text.includes(capped.key), 'a gateway key was logged');
      assert.ok(!text.includes(org.token), 'a console token was logged');
      assert.ok(!text.includes('sk-not-a-key'), 'a presented credential was logged');
      assert.ok(!/authorization/i.test(text), 'a header was logged');
    }
  });
});

describe('access log settings', () => {
  it('GATEWAY_ACCESS_LOG=errors logs refusals but no successes; the level is GATEWAY_ACCESS_LOG_LEVEL', async () => {
    const captured = capturingLogger();
    const h = await startHarness({
      logger: captured.logger,
      env: { GATEWAY_ACCESS_LOG: 'errors', GATEWAY_ACCESS_LOG_LEVEL: 'warn' },
    });
    try {
      const org = await h.organization();
      const key = await h.createKey(org, { name: 'errors only' });
      const listed = await h.gateway('GET', '/v1/models', {
        token: key.key,
        headers: { 'x-request-id': 'errors-mode-200' },
      });
      assert.equal(listed.status, 200);
      const refused = await h.gateway('GET', '/v1/models', { headers: { 'x-request-id': 'errors-mode-401' } });
      assert.equal(refused.status, 401);
      const line = await lineOf(captured.lines, 'errors-mode-401');
      assert.equal(line.level, 40);
      // The refusal came after the success on the same connection pool; its line is written, so the success's would be.
      assert.equal(captured.lines.filter((l) => l.reqId === 'errors-mode-200').length, 0);
    } finally {
      await h.stop();
    }
  });

  it('GATEWAY_ACCESS_LOG=off writes no access line', async () => {
    const captured = capturingLogger();
    const h = await startHarness({ logger: captured.logger, env: { GATEWAY_ACCESS_LOG: 'off' } });
    try {
      const refused = await h.gateway('GET', '/v1/models', { headers: { 'x-request-id': 'off-mode-401' } });
      assert.equal(refused.status, 401);
    } finally {
      await h.stop();
    }
    assert.deepEqual(captured.lines, []);
  });
});
