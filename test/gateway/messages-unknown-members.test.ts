import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { MODEL_OF, startThreeUpstreams } from '../support/three-upstreams.js';
import { suiteFixture } from '../support/suite-fixture.js';
import { MESSAGES_WEATHER_TOOL as WEATHER_TOOL } from '../support/weather-tool.js';

/**
 * Members Anthropic (or a newer client) adds below the top level of a /v1/messages body (issue
 * 27, row 6: Claude Code 2.1.332 sends `output_config` on a message, and every conversation
 * got 400 `Unknown field "messages[1].output_config"`). Accepted at every depth, forwarded as
 * sent on the native path, dropped when translated; the members the gateway reads keep their
 * types checked.
 */

/** A member no schema of the gateway knows, with a value no translation could produce. */
const NEW_MEMBER = { future_member: { marker: 'not-a-known-member-7f3a' } };
const MARKER = 'not-a-known-member-7f3a';

function bodyWithUnknownMembers(model: string): Record<string, any> {
  return {
    model,
    max_tokens: 256,
    system: [{ type: 'text', text: 'You are terse.', ...NEW_MEMBER }],
    tools: [{ ...WEATHER_TOOL, ...NEW_MEMBER }],
    tool_choice: { type: 'auto', ...NEW_MEMBER },
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'Weather in Oslo?',
            cache_control: { type: 'ephemeral', ...NEW_MEMBER },
            ...NEW_MEMBER,
          },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=', ...NEW_MEMBER },
            ...NEW_MEMBER,
          },
          { type: 'image', source: { type: 'url', url: 'https://example.com/map.png', ...NEW_MEMBER } },
        ],
      },
      // As Claude Code 2.1.332 sends it (test/fixtures/agents/claude-code-2.1.332).
      { role: 'system', content: 'Reply in English.', output_config: { effort: 'low' } },
      {
        role: 'assistant',
        ...NEW_MEMBER,
        content: [
          { type: 'thinking', thinking: 'One call.', signature: 'EqQBsig==', ...NEW_MEMBER },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3p', ...NEW_MEMBER },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' }, ...NEW_MEMBER },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_1',
            content: [{ type: 'text', text: '{"temp":7}', ...NEW_MEMBER }],
            ...NEW_MEMBER,
          },
        ],
      },
    ],
  };
}

describe('/v1/messages: unknown members of messages, blocks, tools and tool_choice', () => {
  const env = suiteFixture(() => startThreeUpstreams());
  beforeEach(() => {
    for (const mock of Object.values(env.mocks)) mock.reset();
  });

  const post = (body: Record<string, unknown>, path = '/v1/messages', headers: Record<string, string> = {}) =>
    env.h.gateway('POST', path, {
      headers: { 'x-api-key': env.key.key, 'anthropic-version': '2023-06-01', ...headers },
      body,
    });

  it('native path: 200, and Anthropic receives every member as the client sent it', async () => {
    env.mocks.anthropic.setScenario({ text: 'Cold.' });
    const body = bodyWithUnknownMembers(MODEL_OF.anthropic);
    const result = await post(body);
    assert.equal(result.status, 200, result.text);
    const sent = env.mocks.anthropic.lastRequest()!.body;
    assert.deepEqual(sent, { ...body, model: 'claude-haiku-4-5' });
  });

  it("native path with Claude Code's compression bundle: the compressed body keeps every unknown member", async () => {
    env.mocks.anthropic.setScenario({ text: 'Cold.' });
    const body = bodyWithUnknownMembers(MODEL_OF.anthropic);
    const result = await post(body, '/v1/messages', { 'x-gateway-compression-model': 'claude' });
    assert.equal(result.status, 200, result.text);
    const sent = env.mocks.anthropic.lastRequest()!.rawBody;
    const count = (text: string) => text.split(MARKER).length - 1;
    assert.equal(count(sent), count(JSON.stringify(body)));
    assert.deepEqual(JSON.parse(sent).messages[1].output_config, { effort: 'low' });
  });

  it('translated path: 200, and the OpenAI provider gets the conversation without the unknown members', async () => {
    env.mocks.openai.setScenario({ text: 'Cold.' });
    const result = await post(bodyWithUnknownMembers(MODEL_OF.openai));
    assert.equal(result.status, 200, result.text);
    const sent = env.mocks.openai.lastRequest()!;
    assert.ok(!sent.rawBody.includes(MARKER), sent.rawBody);
    assert.ok(!sent.rawBody.includes('output_config'), sent.rawBody);
    // What the translation reads still arrives: text, images, the call and its result.
    const messages = sent.body.messages as Array<Record<string, any>>;
    assert.deepEqual(
      messages.map((m) => m.role),
      ['system', 'user', 'system', 'assistant', 'tool'],
    );
    assert.equal(messages[1]!.content[1].image_url.url, 'data:image/png;base64,iVBORw0KGgo=');
    assert.equal(messages[3]!.tool_calls[0].function.name, 'get_weather');
    assert.equal(messages[4]!.content, '{"temp":7}');
  });

  it('count_tokens accepts the same body', async () => {
    const { max_tokens: _max, ...body } = bodyWithUnknownMembers(MODEL_OF.anthropic);
    const result = await post(body, '/v1/messages/count_tokens');
    assert.equal(result.status, 200, result.text);
    assert.equal(typeof result.json.input_tokens, 'number');
  });

  it("members the gateway reads keep their types checked: 400 in Anthropic's envelope naming the field", async () => {
    const cases: Array<{ change: (body: Record<string, any>) => void; param: string }> = [
      { change: (b) => (b.messages[3].content[0].is_error = 'yes'), param: 'messages[3].content[0].is_error' },
      { change: (b) => (b.messages[0].content[1].source.data = 42), param: 'messages[0].content[1].source' },
      { change: (b) => (b.messages[1].role = 'narrator'), param: 'messages[1].role' },
      {
        change: (b) => (b.tool_choice.disable_parallel_tool_use = 'no'),
        param: 'tool_choice.disable_parallel_tool_use',
      },
    ];
    for (const { change, param } of cases) {
      const body = bodyWithUnknownMembers(MODEL_OF.anthropic);
      change(body);
      const result = await post(body);
      assert.equal(result.status, 400, `${param}: ${result.text}`);
      assert.equal(result.json.type, 'error');
      assert.equal(result.json.error.type, 'invalid_request_error');
      assert.ok(String(result.json.error.param).startsWith(param), `${param}: ${result.text}`);
    }
    assert.equal(env.mocks.anthropic.requests.length, 0, 'nothing refused reached the provider');
  });
});
