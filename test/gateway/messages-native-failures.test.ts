import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { header, parseSse, usageRowOf } from '../support/chat-kit.js';
import { MIXED, NATIVE, PAIR, RAW, THINKING, faithfulBody, startNativeMessages } from './messages-native-fixture.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * /v1/messages, native pass-through (docs/agent-endpoints.md): a model whose first target is
 * Anthropic gets the client's own Messages body, and the client gets Anthropic's answer.
 */
describe('POST /v1/messages: native pass-through to Anthropic, when the upstream fails', () => {
  const env = suiteFixture(startNativeMessages);
  beforeEach(() => env.reset());

  it('a 429 is retried on the same Anthropic target (retry-after honoured), natively', async () => {
    env.anthropic.setScenario([{ status: 429, headers: { 'retry-after-ms': '20' } }, { text: 'after retry' }]);
    const result = await env.post(faithfulBody({ model: NATIVE, enable_debug: true }));
    assert.equal(result.status, 200, result.text);
    assert.equal(env.anthropic.requests.length, 2);
    assert.equal(env.anthropic.requests[1]!.body.top_k, 7, 'the retry sends the same native body');
    assert.deepEqual(result.json.content, [{ type: 'text', text: 'after retry' }]);
    assert.deepEqual(
      result.json.debug.attempts.map((a: any) => a.status),
      [429, 200],
    );
  });

  it('5xx on every try of the first Anthropic target: the next Anthropic target answers natively', async () => {
    env.anthropic.setScenario({ status: 529, errorMessage: 'overloaded' });
    env.anthropicB.setScenario({ thinking: THINKING, text: 'from b' });
    for (const stream of [false, true]) {
      env.anthropic.reset();
      env.anthropicB.reset();
      env.anthropic.setScenario({ status: 529, errorMessage: 'overloaded' });
      env.anthropicB.setScenario({ thinking: THINKING, text: 'from b' });
      const result = await env.post(faithfulBody({ model: PAIR, stream }));
      assert.equal(result.status, 200, result.text);
      assert.equal(env.anthropic.requests.length, 2, 'two attempts on the first target');
      assert.equal(env.anthropicB.requests.length, 1);
      assert.equal(env.anthropicB.lastRequest()!.body.model, 'claude-b');
      assert.equal(env.anthropicB.lastRequest()!.body.messages[1].content[0].type, 'thinking');
      if (!stream) assert.equal(result.json.content[0].type, 'thinking');
      else assert.match(result.text, /signature_delta/);
      const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
      assert.equal(row.provider, 'mock-anthropic-b');
    }
    // Both fail: the error and the row name the provider that answered last.
    env.anthropicB.setScenario({ status: 500 });
    const failed = await env.post(faithfulBody({ model: PAIR }));
    assert.equal(failed.status, 502);
    assert.equal(failed.json.error.provider, 'mock-anthropic-b');
    const row = await usageRowOf(env.h.running.store, header(failed, 'x-request-id')!);
    assert.equal(row.provider, 'mock-anthropic-b');
    assert.equal(Number(row.status_code), 502);
  });

  it('the Anthropic target failing before the first byte with a non-Anthropic fallback: the translated path takes over', async () => {
    for (const stream of [false, true]) {
      env.anthropic.reset();
      env.openai.reset();
      env.anthropic.setScenario({ status: 503 });
      env.openai.setScenario({ textChunks: ['from ', 'openai'], usage: { inputTokens: 40, outputTokens: 2 } });
      const result = await env.post(faithfulBody({ model: MIXED, stream, enable_debug: true }));
      assert.equal(result.status, 200, result.text);
      assert.equal(env.anthropic.requests.length, 2);
      assert.equal(env.openai.requests.length, 1);
      const sent = env.openai.lastRequest()!.body;
      assert.equal(sent.model, 'gpt-4o-mini');
      assert.ok(
        Array.isArray(sent.messages) && sent.messages.some((m: any) => m.role === 'tool'),
        'a chat-shaped request',
      );
      const message = stream
        ? (() => {
            const events = parseSse(result.text).map((e) => JSON.parse(e.data));
            assert.equal(events.at(-1).type, 'message_stop');
            return {
              text: events
                .filter((e) => e.delta?.type === 'text_delta')
                .map((e) => e.delta.text)
                .join(''),
              debug: events.find((e) => e.type === 'message_delta').debug,
            };
          })()
        : { text: result.json.content[0].text, debug: result.json.debug };
      assert.equal(message.text, 'from openai');
      assert.deepEqual(
        message.debug.attempts.map((a: any) => [a.provider, a.status]),
        [
          ['mock-anthropic', 503],
          ['mock-anthropic', 503],
          ['mock-openai', 200],
        ],
      );
      assert.equal(message.debug.messages_path, 'translated_fallback');
      const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
      assert.equal(row.provider, 'mock-openai');
      assert.equal(Number(row.input_tokens), 40);
    }
  });

  it('a 400 from Anthropic is final: no retry, no fallback, an invalid_request_error with the provider details; metered', async () => {
    env.anthropic.setScenario({ status: 400, errorMessage: 'thinking.budget_tokens: must be less than max_tokens' });
    const result = await env.post(faithfulBody({ model: MIXED }));
    assert.equal(result.status, 400);
    assert.equal(result.json.type, 'error');
    assert.equal(result.json.error.type, 'invalid_request_error');
    assert.equal(result.json.error.code, 'provider_error');
    assert.equal(result.json.error.upstream_status, 400);
    assert.match(result.json.error.message, /budget_tokens/);
    assert.equal(env.anthropic.requests.length, 1);
    assert.equal(env.openai.requests.length, 0);
    const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 400);
    assert.equal(Number(row.input_tokens), 0);
  });

  it('429 on every try with no other target: rate_limit_error with retry-after, for the SDK a RateLimitError', async () => {
    env.anthropic.setScenario({ status: 429, headers: { 'retry-after': '7' } });
    const result = await env.post(faithfulBody({ model: NATIVE }));
    assert.equal(result.status, 429);
    assert.equal(result.json.error.type, 'rate_limit_error');
    assert.equal(header(result, 'retry-after'), '7');
    await assert.rejects(
      env.client.messages.create({ model: NATIVE, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
      (error: unknown) => {
        assert.ok(error instanceof Anthropic.RateLimitError);
        return true;
      },
    );
  });

  it("an Anthropic `error` event mid-stream ends the client stream with the route's error event; metered with what was produced", async () => {
    const result = await env.post({
      model: RAW,
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(result.status, 200);
    const events = parseSse(result.text);
    assert.deepEqual(
      events.map((e) => e.event),
      ['message_start', 'content_block_start', 'content_block_delta', 'error'],
    );
    const error = JSON.parse(events.at(-1)!.data);
    assert.equal(error.type, 'error');
    assert.equal(error.error.code, 'provider_error');
    assert.match(error.error.message, /overloaded_error: Overloaded/);
    assert.ok(error.request_id);
    const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 502);
    assert.equal(Number(row.input_tokens), 25);
    assert.ok(Number(row.output_tokens) >= 1);
  });

  it('an upstream stream cut short becomes the error event and is metered with its status', async () => {
    env.anthropic.setScenario({ textChunks: ['a ', 'b ', 'c ', 'd ', 'e ', 'f'], closeMidStream: true });
    const result = await env.post({
      model: NATIVE,
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(result.status, 200);
    const events = parseSse(result.text);
    const last = events.at(-1)!;
    assert.equal(last.event, 'error');
    const error = JSON.parse(last.data);
    assert.equal(error.type, 'error');
    assert.equal(error.error.code, 'provider_error');
    const row = await usageRowOf(env.h.running.store, header(result, 'x-request-id')!);
    assert.equal(Number(row.status_code), 502);
  });
});
