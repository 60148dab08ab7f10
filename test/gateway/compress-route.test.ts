import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING, assertGatewayError } from '../support/chat-kit.js';
import { build, outputs, type Dialogue, type Shape } from '../compress/helpers/build.js';
import { fixtureText } from '../compress/helpers/fixtures.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A request Codex 0.169 sent (test/fixtures/agents/codex): custom tool output, tools in an input item. */
const codexRequest = () =>
  JSON.parse(
    readFileSync(
      join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'agents', 'codex', '02-tool-result.json'),
      'utf8',
    ),
  ).body as Record<string, any>;

/** An agent conversation with long, repeated tool outputs (real npm and pytest logs). */
function dialogue(): Dialogue {
  const npm = fixtureText('npm-install.txt');
  const pytest = fixtureText('pytest-verbose-failure.txt');
  return {
    system: 'You are a coding agent working in a repository.',
    task: 'Make the failing test pass.',
    turns: [
      {
        assistant: 'Installing dependencies.',
        calls: [{ id: 'call_1', name: 'bash', args: { command: 'npm install' }, output: npm }],
      },
      {
        assistant: 'Running the tests.',
        calls: [{ id: 'call_2', name: 'bash', args: { command: 'pytest -v' }, output: pytest }],
      },
      {
        assistant: 'Running them again.',
        calls: [{ id: 'call_3', name: 'bash', args: { command: 'pytest -v' }, output: pytest }],
      },
      { assistant: 'I will now edit the code.', calls: [] },
    ],
  };
}

/** Members the route must return exactly as sent, added to every body. */
const PASS_THROUGH = {
  temperature: 0.3,
  tags: ['compress-test'],
  stream: false,
  metadata: { run: 7, nested: { list: [1, 'two', null] } },
  x_vendor_field: 'kept verbatim',
};

describe('POST /v1/compress', () => {
  let h: Harness;
  let mock: MockUpstream;
  let token: string;

  before(async () => {
    // A real provider behind openai/gpt-4o, to prove compress never calls it.
    mock = await startMockOpenAI();
    h = await startHarness({
      config: {
        providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_KEY' }],
        models: [{ id: 'openai/gpt-4o', providers: [{ provider: 'mock-openai', model: 'gpt-4o' }], pricing: PRICING }],
      },
      env: { MOCK_KEY: 'sk-mock' },
    });
    const org = await h.organization();
    token = (await h.createKey(org)).key;
  });
  after(async () => {
    assert.equal(mock.requests.length, 0, 'no provider was called by any compress request');
    await h.stop();
    await mock.close();
  });

  const compress = (body: unknown, headers: Record<string, string> = {}) =>
    h.gateway('POST', '/v1/compress', { token, body, headers });

  function assertCompressionObject(compression: any, expectSavings: boolean): void {
    assert.ok(compression, 'compression object present');
    assert.ok(['auto', 'tool'].includes(compression.technique), compression.technique);
    assert.ok(Array.isArray(compression.applied_strategies));
    assert.ok(compression.applied_strategies.every((s: unknown) => typeof s === 'string'));
    assert.ok(Number.isInteger(compression.uncompressed_input_tokens));
    assert.ok(Number.isInteger(compression.compressed_input_tokens));
    assert.ok(Number.isInteger(compression.compression_time_ms), 'whole milliseconds');
    assert.ok(compression.compression_time_ms >= 0);
    const { uncompressed_input_tokens: before, compressed_input_tokens: after } = compression;
    assert.ok(after <= before);
    if (expectSavings) {
      assert.ok(
        compression.applied_strategies.includes('tool_result_trimming'),
        JSON.stringify(compression.applied_strategies),
      );
      assert.ok(after < before);
      // A fraction removed: 1000 → 810 gives 0.19.
      assert.ok(Math.abs(compression.compression_rate - (before - after) / before) < 1e-4, JSON.stringify(compression));
    } else {
      assert.deepEqual(compression.applied_strategies, []);
      assert.equal(compression.compression_rate, 0);
      assert.equal(after, before);
    }
  }

  for (const shape of ['chat', 'messages', 'responses'] as Shape[]) {
    it(`compresses a ${shape}-style body: tool outputs shrink, its shape and every other field are kept`, async () => {
      const sent: Record<string, unknown> = { ...build(dialogue(), shape), ...PASS_THROUGH };
      const result = await compress(sent);
      assert.equal(result.status, 200, result.text);
      const { compression, ...returned } = result.json;
      assertCompressionObject(compression, true);

      // Everything but messages / input / system / tools comes back unchanged.
      const changeable = new Set(['messages', 'input', 'system', 'tools']);
      for (const [field, value] of Object.entries(sent)) {
        if (!changeable.has(field)) assert.deepEqual(returned[field], value, field);
      }
      assert.deepEqual(Object.keys(returned).sort(), Object.keys(sent).sort(), 'no member added or dropped');

      // Detected as the right shape: the tool outputs of that shape were found and shortened,
      // every call still has its output, and the conversation keeps its structure.
      const before = outputs(sent);
      const after = outputs(returned);
      assert.deepEqual([...after.keys()], [...before.keys()]);
      const total = (m: Map<string, string>) => [...m.values()].reduce((n, s) => n + s.length, 0);
      assert.ok(
        total(after) < total(before) / 2,
        `${shape}: tool outputs ${total(before)} → ${total(after)} characters`,
      );
      if (shape === 'messages') assert.equal(returned.system, sent.system);
      if (shape === 'responses') assert.equal(returned.instructions, sent.instructions);
    });
  }

  it('detects the format from the body: system wins over input, input over messages', async () => {
    const responses = build(dialogue(), 'responses');
    const chat = build(dialogue(), 'chat');
    // `input` and chat `messages`: responses style, so `messages` is not read (passes through).
    const both = await compress({ ...responses, messages: chat.messages });
    assert.equal(both.status, 200, both.text);
    assert.deepEqual(both.json.messages, chat.messages);
    assert.ok(JSON.stringify(both.json.input).length < JSON.stringify(responses.input).length);
    // Adding `system` makes it messages style: now `input` is the member that is not read.
    const messages = build(dialogue(), 'messages');
    const withSystem = await compress({ ...messages, input: responses.input });
    assert.equal(withSystem.status, 200, withSystem.text);
    assert.deepEqual(withSystem.json.input, responses.input);
    assert.ok(JSON.stringify(withSystem.json.messages).length < JSON.stringify(messages.messages).length);
  });

  it('a body with nothing to compress comes back unchanged, with the compression object', async () => {
    const sent = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hello!' }], ...PASS_THROUGH };
    const result = await compress(sent);
    assert.equal(result.status, 200, result.text);
    const { compression, ...returned } = result.json;
    assert.deepEqual(returned, sent);
    assertCompressionObject(compression, false);
  });

  it('malformed JSON is 400 invalid_json; a body that cannot be converted is 400 invalid_request', async () => {
    const malformed = await h.gateway('POST', '/v1/compress', {
      token,
      rawBody: '{"messages": [',
      headers: { 'content-type': 'application/json' },
    });
    assertGatewayError(malformed, { status: 400, code: 'invalid_json', type: 'invalid_request_error' });
    assertGatewayError(await compress({ messages: 5 }), {
      status: 400,
      code: 'invalid_request',
      type: 'invalid_request_error',
    });
    assertGatewayError(await compress([1, 2, 3]), { status: 400, code: 'invalid_request' });
    assertGatewayError(await compress({ input: [{ type: 'function_call_output' }] }), {
      status: 400,
      code: 'invalid_request',
    });
  });

  it('accepts x-api-key and Basic on /v1/compress; x-api-key alone is 401 on chat completions', async () => {
    const body = build(dialogue(), 'chat');
    const viaXApiKey = await h.gateway('POST', '/v1/compress', { body, headers: { 'x-api-key': token } });
    assert.equal(viaXApiKey.status, 200, viaXApiKey.text);
    assert.ok(viaXApiKey.json.compression);
    const viaBasic = await h.gateway('POST', '/v1/compress', {
      body,
      headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` },
    });
    assert.equal(viaBasic.status, 200, viaBasic.text);
    assertGatewayError(await h.gateway('POST', '/v1/compress', { body }), { status: 401, code: 'unauthorized' });
    assertGatewayError(await h.gateway('POST', '/v1/compress', { body, headers: { 'x-api-key': 'wrong' } }), {
      status: 401,
      code: 'unauthorized',
    });
    const chat = await h.gateway('POST', '/v1/chat/completions', {
      body: { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      headers: { 'x-api-key': token },
    });
    assertGatewayError(chat, { status: 401, code: 'unauthorized', type: 'authentication_error' });
  });

  it('an unknown compression model, in the header or the body, is 400 naming compression_model', async () => {
    const body = build(dialogue(), 'chat');
    assertGatewayError(await compress(body, { 'x-gateway-compression-model': 'vim' }), {
      status: 400,
      code: 'invalid_request',
      param: 'compression_model',
    });
    assertGatewayError(await compress({ ...body, compression_model: 'vim' }), {
      status: 400,
      code: 'invalid_request',
      param: 'compression_model',
    });
    for (const bundle of ['claude', 'codex', 'opencode', 'cursor']) {
      const result = await compress(body, { 'x-gateway-compression-model': bundle });
      assert.equal(result.status, 200, `${bundle}: ${result.text}`);
      assert.ok(
        result.json.compression.compressed_input_tokens < result.json.compression.uncompressed_input_tokens,
        bundle,
      );
      assert.equal(result.json.compression.technique, 'tool', `${bundle}: a requested bundle`);
    }
    assert.equal((await compress(body)).json.compression.technique, 'auto', 'no bundle requested');
    assert.equal((await compress({ ...body, compression_model: 'codex' })).json.compression.technique, 'tool');
  });

  it('compresses a recorded Codex request: its custom tool outputs and additional_tools, every other item as sent', async () => {
    const sent = codexRequest();
    // The conversation continued: a second exec call printed a pytest log (its command sits in
    // the JavaScript, so the filter is chosen from the output).
    const log = fixtureText('pytest-verbose-failure.txt');
    sent.input.push(
      {
        type: 'custom_tool_call',
        call_id: 'call_2',
        name: 'exec',
        input: 'text((await tools.exec_command({ cmd: "pytest -v" })).output);',
      },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: log }] },
    );
    const result = await compress(sent, { 'x-gateway-compression-model': 'codex' });
    assert.equal(result.status, 200, result.text);
    const { compression, ...returned } = result.json;
    assert.equal(compression.technique, 'tool');
    assert.ok(compression.applied_strategies.includes('tool_result_trimming'), JSON.stringify(compression));
    assert.ok(compression.applied_strategies.includes('tool_surface_reduction'), JSON.stringify(compression));
    assert.ok(compression.compressed_input_tokens < compression.uncompressed_input_tokens);
    assert.deepEqual(Object.keys(returned), Object.keys(sent));
    const last = sent.input.length - 1;
    for (let i = 1; i < last; i++) assert.deepEqual(returned.input[i], sent.input[i], `input[${i}]`);
    const output = returned.input[last];
    assert.equal(output.type, 'custom_tool_call_output');
    assert.equal(output.call_id, 'call_2');
    assert.equal(output.output[0].type, 'input_text');
    assert.ok(output.output[0].text.length < log.length / 2, `${log.length} → ${output.output[0].text.length}`);
  });
});
