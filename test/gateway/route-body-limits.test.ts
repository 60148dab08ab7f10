import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { loadConversations } from '../../bench/compress/dataset.js';
import { TRAJECTORY_DIR } from '../fixtures/trajectories.js';

/**
 * Per-route body limits (docs/configuration.md, "Body limits and big inputs"), and the big
 * inputs they let through: a 50 MB agent transcript is compressed when
 * GATEWAY_COMPRESS_BODY_LIMIT_BYTES allows it (issue 16: "nothing legitimate breaks"), on a
 * pool thread, with the client errors of a small body (invalid JSON, not an object, not a
 * conversation) answered the same way from there.
 */
const MiB = 1024 * 1024;

/** A chat body of at least `bytes`, made of the fixture transcripts end to end (tool calls renamed per copy). */
function transcript(bytes: number): string {
  const conversations = loadConversations(TRAJECTORY_DIR);
  const messages: unknown[] = [];
  let size = 0;
  for (let copy = 0; size < bytes; copy++) {
    for (const conversation of conversations) {
      for (const message of conversation.messages) {
        if (message.role === 'system' && messages.length > 0) continue;
        const renamed = JSON.parse(JSON.stringify(message)) as Record<string, any>;
        if (Array.isArray(renamed.tool_calls))
          renamed.tool_calls = renamed.tool_calls.map((call: { id: string }) => ({
            ...call,
            id: `${call.id}_${copy}`,
          }));
        if (typeof renamed.tool_call_id === 'string') renamed.tool_call_id = `${renamed.tool_call_id}_${copy}`;
        messages.push(renamed);
        size += JSON.stringify(renamed).length;
      }
    }
  }
  return JSON.stringify({ model: 'openai/gpt-4o', messages });
}

describe('per-route body limits and 50 MB compress bodies', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await startHarness({
      env: {
        GATEWAY_COMPRESS_BODY_LIMIT_BYTES: String(64 * MiB),
        GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES: String(1 * MiB),
      },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(async () => {
    await h.stop();
  });

  const post = (path: string, rawBody: string, headers: Record<string, string> = {}) =>
    h.gateway('POST', path, { token: key, rawBody, headers: { 'content-type': 'application/json', ...headers } });

  it('compresses a 50 MB transcript when the route limit allows it', async () => {
    const rawBody = transcript(50 * 1000 * 1000);
    assert.ok(rawBody.length > 50 * 1000 * 1000 && rawBody.length < 64 * MiB);
    const stall = monitorEventLoopDelay({ resolution: 10 });
    stall.enable();
    const started = performance.now();
    const result = await post('/v1/compress', rawBody);
    const elapsedMs = performance.now() - started;
    stall.disable();
    assert.equal(result.status, 200, result.text.slice(0, 300));
    const report = result.json.compression;
    console.log(
      `50 MB /v1/compress: ${elapsedMs.toFixed(0)} ms, ${report.uncompressed_input_tokens} → ${report.compressed_input_tokens} tokens;` +
        ` event loop stalled ${(stall.max / 1e6).toFixed(0)} ms at most (client included)`,
    );
    assert.ok(report.compressed_input_tokens < report.uncompressed_input_tokens);
    assert.equal(result.json.model, 'openai/gpt-4o');
    assert.ok(Array.isArray(result.json.messages) && result.json.messages.length > 1000);
  });

  it('answers the client errors of a big compress body as it does for a small one', async () => {
    const padding = 'x'.repeat(200_000);
    const notJson = await post('/v1/compress', `{"model": "openai/gpt-4o", "messages": [${padding}`);
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.error.code, 'invalid_json');
    const array = await post('/v1/compress', JSON.stringify([padding]));
    assert.equal(array.status, 400);
    assert.equal(array.json.error.code, 'invalid_request');
    assert.match(array.json.error.message, /must be a JSON object/);
    const noMessages = await post('/v1/compress', JSON.stringify({ model: 'openai/gpt-4o', note: padding }));
    const small = await post('/v1/compress', JSON.stringify({ model: 'openai/gpt-4o', note: 'x' }));
    assert.equal(noMessages.status, small.status);
    assert.equal(noMessages.json.error?.code, small.json.error?.code);
    const deep = await post('/v1/compress', `{"padding": "${padding}", "x": ${'['.repeat(100)}${']'.repeat(100)}}`);
    assert.equal(deep.status, 400);
    assert.equal(deep.json.error.code, 'invalid_json');
    assert.match(deep.json.error.message, /levels deep/);
    const badBundle = await post('/v1/compress', transcript(300_000), { 'x-gateway-compression-model': 'nope' });
    assert.equal(badBundle.status, 400);
    assert.equal(badBundle.json.error.param, 'compression_model');
  });

  it('refuses a body over its route limit with 413 in the route envelope, the other routes keeping theirs', async () => {
    const twoMiB = JSON.stringify({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'y'.repeat(2 * MiB) }],
    });
    const openai = await post('/v1/count_tokens', twoMiB);
    assert.equal(openai.status, 413);
    assert.equal(openai.json.error.code, 'request_too_large');
    const anthropic = await post('/v1/messages/count_tokens', twoMiB);
    assert.equal(anthropic.status, 413);
    assert.equal(anthropic.json.type, 'error');
    assert.equal(anthropic.json.error.type, 'request_too_large');
    // The chat route keeps the listener's 10 MiB: 2 MiB passes its limit (and is answered by
    // admission), 11 MiB does not.
    const chat = await post('/v1/chat/completions', twoMiB.replace('openai/gpt-4o', 'local/echo'));
    assert.equal(chat.status, 200, chat.text.slice(0, 200));
    const elevenMiB = JSON.stringify({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'y'.repeat(11 * MiB) }],
    });
    const tooBig = await post('/v1/chat/completions', elevenMiB);
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.json.error.code, 'request_too_large');
    // /v1/compress takes a body over the listener's limit (its own is 64 MiB) and refuses one over its own.
    const compressed = await post('/v1/compress', elevenMiB);
    assert.equal(compressed.status, 200, compressed.text.slice(0, 200));
  });
});
