import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent } from 'undici';
import Anthropic from '@anthropic-ai/sdk';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import {
  startMockAnthropic,
  startMockGemini,
  startMockOpenAI,
  type MockUpstream,
} from '../support/mock-upstreams/index.js';
import { PRICING, parseSse } from '../support/chat-kit.js';
import { anthropicClient, trustingDispatcher } from '../support/sdk-clients.js';
import { countBodyTokens } from '../../src/compress/token-count.js';
import { tokenizerForModel } from '../../src/tokenize/index.js';

/**
 * /v1/messages as Claude Code 2.1.197 uses it (issue 18, blockers 2, 4 and 5), from the request
 * it really sends (test/fixtures/agents/claude-code): `role: "system"` messages inside the
 * conversation, Anthropic server tools, Anthropic's `request-id` header and 529 status.
 */
const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'agents', 'claude-code');
const recorded = (file: string) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { body: any };
const TOOL_CALL = recorded('02-tool-call.json').body;
const TOOL_RESULT = recorded('03-tool-result.json').body;
const MID_SYSTEM_TEXT: string = TOOL_CALL.messages[1].content;

/**
 * Claude Code's test for "the server refused role: system" (`MBn` in its bundled cli): on a
 * 400 whose message matches, it resends the system text as a `<system-reminder>` in the user
 * turn and drops the beta. Our refusals must match it, or its fallback never fires.
 */
function claudeCodeFallsBack(error: { status?: number; message: string }): boolean {
  if (error.status !== 400) return false;
  const t = error.message;
  if (t.includes('mid-conversation-system-2026-04-07') && t.includes('anthropic-beta')) return true;
  if (t.includes('Unexpected role') && t.includes('input message role')) return true;
  return t.includes('not supported') && /role .{0,2}system/i.test(t);
}

const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
/** A turn after Anthropic ran a web search: its server blocks come back in the history. */
const SEARCHED_HISTORY = [
  { role: 'user', content: 'What is new in Node 26?' },
  {
    role: 'assistant',
    content: [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'Node 26 release' } },
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: [{ type: 'web_search_result', url: 'https://nodejs.org/', title: 'Node.js', encrypted_content: 'x' }],
      },
      { type: 'text', text: 'Node 26 ships …' },
    ],
  },
  { role: 'user', content: 'Thanks. Anything about fetch?' },
];

describe('/v1/messages as Claude Code sends it', () => {
  let h: Harness;
  let anthropic: MockUpstream;
  let openai: MockUpstream;
  let gemini: MockUpstream;
  let key: string;
  let dispatcher: Agent;
  let client: Anthropic;

  before(async () => {
    anthropic = await startMockAnthropic({ apiKey: 'sk-ant' });
    openai = await startMockOpenAI({ apiKey: 'sk-openai' });
    gemini = await startMockGemini({ apiKey: 'g-key' });
    h = await startHarness({
      config: {
        providers: [
          { id: 'anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_ANTHROPIC_KEY' },
          { id: 'openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' },
          { id: 'google', kind: 'gemini', base_url: gemini.baseUrl, api_key_env: 'MOCK_GEMINI_KEY' },
        ],
        models: [
          {
            id: 'anthropic/claude-then-gpt',
            providers: [
              { provider: 'anthropic', model: 'claude-opus-4-8' },
              { provider: 'openai', model: 'gpt-5' },
            ],
            pricing: PRICING,
          },
        ],
        retry: { max_attempts: 1 },
      },
      env: { MOCK_ANTHROPIC_KEY: 'sk-ant', MOCK_OPENAI_KEY: 'sk-openai', MOCK_GEMINI_KEY: 'g-key' },
    });
    const org = await h.organization();
    key = (await h.createKey(org)).key;
    dispatcher = trustingDispatcher(h);
    client = anthropicClient(h, key, dispatcher);
  });
  after(async () => {
    await dispatcher.close();
    await h.stop();
    await Promise.all([anthropic.close(), openai.close(), gemini.close()]);
  });
  beforeEach(() => {
    for (const mock of [anthropic, openai, gemini]) mock.reset();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    h.gateway('POST', '/v1/messages?beta=true', {
      body,
      headers: {
        'x-api-key': key,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'mid-conversation-system-2026-04-07',
        ...headers,
      },
    });

  describe('role "system" messages inside the conversation', () => {
    it('reach Anthropic as sent, at their place, with the beta header (native path)', async () => {
      for (const body of [TOOL_CALL, TOOL_RESULT]) {
        anthropic.reset();
        const result = await post(body);
        assert.equal(result.status, 200, result.text.slice(0, 400));
        const sent = anthropic.lastRequest()!;
        assert.deepEqual(sent.body.messages, body.messages);
        assert.match(String(sent.headers['anthropic-beta']), /mid-conversation-system-2026-04-07/);
      }
    });

    it('stay system messages at their place for an OpenAI-style provider', async () => {
      const result = await post({ ...TOOL_RESULT, model: 'openai/gpt-5', stream: false });
      assert.equal(result.status, 200, result.text.slice(0, 400));
      const roles = openai.lastRequest()!.body.messages.map((m: any) => m.role);
      // top-level system, the user turn, the mid-conversation system message, the call, its result
      assert.deepEqual(roles, ['system', 'user', 'system', 'assistant', 'tool']);
      assert.equal(openai.lastRequest()!.body.messages[2].content, MID_SYSTEM_TEXT);
    });

    it('join the system instruction, in order, for Gemini', async () => {
      const result = await post({ ...TOOL_CALL, model: 'google/gemini-2.5-flash', stream: false });
      assert.equal(result.status, 200, result.text.slice(0, 400));
      const sent = gemini.lastRequest()!.body;
      const instruction = sent.systemInstruction.parts.map((p: any) => p.text).join('\n');
      assert.ok(instruction.includes(MID_SYSTEM_TEXT));
      assert.ok(instruction.indexOf('You are a Claude agent') < instruction.indexOf(MID_SYSTEM_TEXT));
      assert.ok(sent.contents.every((c: any) => c.role === 'user' || c.role === 'model'));
    });

    it('with anything but text are refused in words that make Claude Code fall back to a system reminder', async () => {
      const body = {
        ...TOOL_CALL,
        model: 'openai/gpt-5',
        stream: false,
        max_tokens: 1024,
        messages: [
          TOOL_CALL.messages[0],
          { role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'https://x.test/a.png' } }] },
        ],
      };
      await assert.rejects(client.messages.create(body), (error: any) => {
        assert.ok(error instanceof Anthropic.BadRequestError);
        assert.equal((error.error as any).error.type, 'invalid_request_error');
        assert.equal((error.error as any).error.param, 'messages[1].content[0].type');
        assert.ok(claudeCodeFallsBack(error), error.message);
        return true;
      });
      assert.equal(openai.requests.length, 0);
    });
  });

  describe('Anthropic server tools', () => {
    it('pass through to Anthropic with their server blocks in the history (native path)', async () => {
      const body = { model: 'claude-opus-4-8', max_tokens: 512, tools: [WEB_SEARCH], messages: SEARCHED_HISTORY };
      const result = await post(body);
      assert.equal(result.status, 200, result.text.slice(0, 400));
      const sent = anthropic.lastRequest()!.body;
      assert.deepEqual(sent.tools, [WEB_SEARCH]);
      // The gateway's own cache breakpoint on the last message (issue 19) aside, the history is
      // passed through as sent.
      const withoutGatewayBreakpoints = JSON.parse(
        JSON.stringify(sent.messages, (key, value) => (key === 'cache_control' ? undefined : value)),
      );
      const last = withoutGatewayBreakpoints.at(-1);
      if (
        Array.isArray(last.content) &&
        last.content.length === 1 &&
        typeof SEARCHED_HISTORY.at(-1)!.content === 'string'
      )
        last.content = last.content[0].text;
      assert.deepEqual(withoutGatewayBreakpoints, SEARCHED_HISTORY);
    });

    it('tool_choice naming a server tool is no obstacle on the native path', async () => {
      const body = {
        model: 'claude-opus-4-8',
        max_tokens: 512,
        tools: [WEB_SEARCH],
        tool_choice: { type: 'tool', name: 'web_search' },
        messages: [{ role: 'user', content: 'search' }],
      };
      const result = await post(body);
      assert.equal(result.status, 200, result.text.slice(0, 400));
    });

    it('are refused in Anthropic’s shape when the request is translated for another provider', async () => {
      for (const [body, param] of [
        [
          { model: 'openai/gpt-5', max_tokens: 64, tools: [WEB_SEARCH], messages: [{ role: 'user', content: 'q' }] },
          'tools[0].type',
        ],
        [{ model: 'openai/gpt-5', max_tokens: 64, messages: SEARCHED_HISTORY }, 'messages[1].content[0].type'],
      ] as const) {
        const result = await post(body);
        assert.equal(result.status, 400, result.text);
        assert.equal(result.json.type, 'error');
        assert.equal(result.json.error.type, 'invalid_request_error');
        assert.equal(result.json.error.param, param);
        assert.ok(
          result.json.error.message.startsWith(`${param.replace(/\[(\d+)\]/g, '.$1')}: `),
          result.json.error.message,
        );
        assert.match(result.json.error.message, /not supported/);
      }
      assert.equal(openai.requests.length, 0);
    });

    it('keep a failing Anthropic target from falling back to a provider that cannot run them', async () => {
      anthropic.setScenario({ status: 500, errorMessage: 'boom' });
      const result = await post({
        model: 'claude-then-gpt',
        max_tokens: 64,
        tools: [WEB_SEARCH],
        messages: [{ role: 'user', content: 'q' }],
      });
      assert.equal(result.status, 502, result.text);
      assert.equal(result.json.error.type, 'api_error');
      assert.equal(openai.requests.length, 0);
    });
  });

  describe("Anthropic's headers and statuses", () => {
    it('every answer carries request-id: JSON, stream, errors, count_tokens; the SDK reads it', async () => {
      const json = await post({ ...TOOL_CALL, stream: false });
      assert.equal(json.status, 200);
      assert.match(String(json.headers['request-id']), /^req_/);
      assert.equal(json.headers['request-id'], json.headers['x-request-id']);

      const stream = await post(TOOL_CALL);
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      assert.match(String(stream.headers['request-id']), /^req_/);
      assert.ok(parseSse(stream.text).some((e) => e.event === 'message_stop'));

      const unauthorized = await h.gateway('POST', '/v1/messages', {
        body: TOOL_CALL,
        headers: { 'x-api-key': 'gw-nope' },
      });
      assert.equal(unauthorized.status, 401);
      assert.equal(unauthorized.headers['request-id'], unauthorized.json.request_id);

      const invalid = await post({ model: 'claude-opus-4-8', messages: [] });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.headers['request-id'], invalid.json.request_id);

      const counted = await h.gateway('POST', '/v1/messages/count_tokens', {
        body: { model: 'claude-opus-4-8', messages: [{ role: 'user', content: 'hi' }] },
        headers: { 'x-api-key': key },
      });
      assert.equal(counted.status, 200);
      assert.match(String(counted.headers['request-id']), /^req_/);

      const { response, data } = await client.messages
        .create({ model: 'claude-opus-4-8', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      assert.ok(data.content.length > 0);
      assert.match(String(response.headers.get('request-id')), /^req_/);
    });

    it('an upstream 529 overloaded_error comes back as 529 overloaded_error with its retry-after', async () => {
      anthropic.setScenario({ status: 529, errorMessage: 'Overloaded', headers: { 'retry-after': '7' } });
      const result = await post({ ...TOOL_CALL, stream: false });
      assert.equal(result.status, 529, result.text);
      assert.equal(result.json.error.type, 'overloaded_error');
      assert.equal(result.headers['retry-after'], '7');
      assert.match(String(result.headers['request-id']), /^req_/);

      anthropic.setScenario({ status: 529, errorMessage: 'Overloaded' });
      const streamed = await post(TOOL_CALL);
      assert.equal(streamed.status, 529, streamed.text);
      assert.equal(streamed.json.error.type, 'overloaded_error');
    });

    it('validation errors read like Anthropic’s: the dotted path, then what is wrong', async () => {
      const role = await post({ model: 'claude-opus-4-8', max_tokens: 8, messages: [{ role: 'robot', content: 'x' }] });
      assert.equal(role.status, 400);
      assert.equal(role.json.error.param, 'messages[0].role');
      assert.match(role.json.error.message, /^messages\.0\.role: /);
      const block = await post({
        model: 'claude-opus-4-8',
        max_tokens: 8,
        messages: [{ role: 'user', content: [{ type: 'text', text: 7 }] }],
      });
      assert.equal(block.status, 400);
      assert.equal(block.json.error.param, 'messages[0].content[0].text');
      assert.match(block.json.error.message, /^messages\.0\.content\.0\.text: /);
    });

    it('retry-after of a 429 is passed on with rate_limit_error', async () => {
      anthropic.setScenario({ status: 429, errorMessage: 'slow down', headers: { 'retry-after': '11' } });
      const result = await post({ ...TOOL_CALL, stream: false });
      assert.equal(result.status, 429);
      assert.equal(result.json.error.type, 'rate_limit_error');
      assert.equal(result.headers['retry-after'], '11');
    });
  });

  describe('compression of Claude Code traffic', () => {
    it('Edgee SDK members ask for it on this route too, and never reach Anthropic', async () => {
      const result = await post({
        ...TOOL_CALL,
        stream: false,
        compression_model: 'agentic',
        compression_configuration: { rate: 0.5 },
        enable_compression: true,
      });
      assert.equal(result.status, 200, result.text.slice(0, 400));
      assert.ok(result.json.compression?.saved_tokens > 0);
      const sent = anthropic.lastRequest()!.body;
      for (const field of ['compression_model', 'compression_configuration', 'enable_compression'])
        assert.ok(!(field in sent), field);
    });

    it('reports the tokens it removed, as a re-count of the body Anthropic got shows', async () => {
      const body = { ...TOOL_CALL, stream: false };
      const result = await post(body, { 'x-gateway-compression-model': 'claude' });
      assert.equal(result.status, 200, result.text.slice(0, 400));
      const sent = anthropic.lastRequest()!;
      const removedBytes = JSON.stringify(body.tools).length - JSON.stringify(sent.body.tools).length;
      assert.ok(removedBytes > 1000, `compression removed ${removedBytes} bytes of tool definitions`);
      const tokenizer = tokenizerForModel(body.model);
      const recount = countBodyTokens(body, 'messages', tokenizer) - countBodyTokens(sent.body, 'messages', tokenizer);
      assert.equal(result.json.compression.saved_tokens, recount);
      // About four bytes a token: the bytes of schema it removed show as tokens saved.
      assert.ok(recount > removedBytes / 8, `${recount} tokens for ${removedBytes} bytes`);
    });
  });
});
