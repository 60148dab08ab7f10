import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, startMockResponses, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, assertGatewayError } from '../support/chat-kit.js';

/**
 * Members OpenAI (or a newer Codex) adds to /v1/responses input items, content parts and tools
 * (issue 27, row 6, the Responses side): accepted at every depth, forwarded as sent on the
 * native path, dropped when translated; the members the gateway reads keep their types checked.
 */

const NATIVE = 'openai/gpt-native'; // first target serves the Responses API
const TRANSLATED = 'anthropic/claude-translated'; // Responses translated to Anthropic Messages

const NEW_MEMBER = { future_member: { marker: 'not-a-known-member-5c1e' } };
const MARKER = 'not-a-known-member-5c1e';

function bodyWithUnknownMembers(model: string): Record<string, any> {
  return {
    model,
    instructions: 'You are terse.',
    input: [
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'Weather in Oslo?', ...NEW_MEMBER },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', ...NEW_MEMBER },
        ],
        ...NEW_MEMBER,
      },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque', ...NEW_MEMBER },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Checking.', annotations: [], ...NEW_MEMBER }],
      },
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        ...NEW_MEMBER,
      },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [{ type: 'input_text', text: '{"temp":7}', ...NEW_MEMBER }],
        ...NEW_MEMBER,
      },
      { type: 'custom_tool_call', call_id: 'call_2', name: 'exec', input: 'date', ...NEW_MEMBER },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Sun Dec 6', ...NEW_MEMBER },
    ],
    tools: [
      {
        type: 'function',
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        ...NEW_MEMBER,
      },
      { type: 'custom', name: 'exec', description: 'Run a script', format: { type: 'text', ...NEW_MEMBER } },
    ],
    tool_choice: { type: 'function', name: 'get_weather', ...NEW_MEMBER },
    reasoning: { effort: 'low', ...NEW_MEMBER },
  };
}

describe('/v1/responses: unknown members of input items, content parts and tools', () => {
  let h: Harness;
  let responses: MockUpstream;
  let anthropic: MockUpstream;
  let key: string;

  before(async () => {
    responses = await startMockResponses({ apiKey: 'sk-openai' });
    anthropic = await startMockAnthropic({ apiKey: 'sk-ant' });
    h = await startHarness({
      config: {
        providers: [
          {
            id: 'openai',
            kind: 'openai',
            base_url: responses.baseUrl,
            api_key_env: 'MOCK_OPENAI_KEY',
            responses_api: true,
          },
          { id: 'anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_ANTHROPIC_KEY' },
        ],
        models: [
          { id: NATIVE, providers: [{ provider: 'openai', model: 'gpt-up' }], pricing: PRICING },
          { id: TRANSLATED, providers: [{ provider: 'anthropic', model: 'claude-up' }], pricing: PRICING },
        ],
        retry: { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0 },
      },
      env: { MOCK_OPENAI_KEY: 'sk-openai', MOCK_ANTHROPIC_KEY: 'sk-ant' },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(async () => {
    await h.stop();
    await Promise.all([responses.close(), anthropic.close()]);
  });
  beforeEach(() => {
    responses.reset();
    anthropic.reset();
  });

  const post = (body: Record<string, unknown>) => h.gateway('POST', '/v1/responses', { token: key, body });

  it('native path: 200, and OpenAI receives every member as the client sent it', async () => {
    const body = bodyWithUnknownMembers(NATIVE);
    const result = await post(body);
    assert.equal(result.status, 200, result.text);
    // The gateway adds its prompt_cache_key hint; everything else is the client's.
    const { prompt_cache_key: _hint, ...sent } = responses.lastRequest()!.body;
    assert.deepEqual(sent, { ...body, model: 'gpt-up' });
  });

  it('translated path: 200, and Anthropic gets the conversation without the unknown members', async () => {
    const result = await post(bodyWithUnknownMembers(TRANSLATED));
    assert.equal(result.status, 200, result.text);
    const sent = anthropic.lastRequest()!;
    assert.ok(!sent.rawBody.includes(MARKER), sent.rawBody);
    // What the translation reads still arrives: text, image, both calls and their results.
    const blocks = (sent.body.messages as Array<{ content: unknown }>).flatMap((m) =>
      Array.isArray(m.content) ? (m.content as Array<Record<string, any>>) : [],
    );
    assert.deepEqual(
      blocks.map((b) => b.type),
      ['text', 'image', 'text', 'tool_use', 'tool_result', 'tool_use', 'tool_result'],
    );
    assert.equal(blocks[3]!.name, 'get_weather');
    assert.equal(blocks[4]!.content, '{"temp":7}');
  });

  it("members the gateway reads keep their types checked: 400 in OpenAI's envelope naming the field", async () => {
    const cases: Array<{ change: (body: Record<string, any>) => void; param: string }> = [
      { change: (b) => (b.input[3].arguments = { city: 'Oslo' }), param: 'input[3].arguments' },
      { change: (b) => (b.input[0].content[0].text = 7), param: 'input[0].content[0].text' },
      { change: (b) => (b.input[4].call_id = ''), param: 'input[4].call_id' },
      { change: (b) => (b.tools[0].strict = 'yes'), param: 'tools[0].strict' },
    ];
    for (const { change, param } of cases) {
      const body = bodyWithUnknownMembers(TRANSLATED);
      change(body);
      assertGatewayError(await post(body), {
        status: 400,
        code: 'invalid_request',
        param: new RegExp(`^${escape(param)}`),
      });
    }
    assert.equal(anthropic.requests.length, 0, 'nothing refused reached the provider');
  });
});

function escape(text: string): string {
  return text.replace(/[[\].]/g, '\\$&');
}
