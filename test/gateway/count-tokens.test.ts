import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { get_encoding, type Tiktoken } from 'tiktoken';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { assertGatewayError } from '../support/chat-kit.js';
import { countRequestTokens } from '../../src/tokenize/index.js';

const chatBody = {
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'What is the capital of France? Answer in one word.' },
    { role: 'assistant', content: 'Paris.' },
    { role: 'user', content: 'And of Germany — über kurz?' },
  ],
};

describe('POST /v1/count_tokens', () => {
  let h: Harness;
  let token: string;
  const encoders: Record<string, Tiktoken> = {};

  before(async () => {
    h = await startHarness();
    const org = await h.organization();
    token = (await h.createKey(org)).key;
    encoders.o200k_base = get_encoding('o200k_base');
    encoders.cl100k_base = get_encoding('cl100k_base');
  });
  after(async () => {
    for (const encoder of Object.values(encoders)) encoder.free();
    await h.stop();
  });

  const count = (body: unknown) => h.gateway('POST', '/v1/count_tokens', { token, body });

  it("counts a chat body with the model's tokenizer, exactly as countRequestTokens does", async () => {
    const result = await count({ model: 'openai/gpt-4o', ...chatBody });
    assert.equal(result.status, 200, result.text);
    assert.equal(result.json.input_tokens, countRequestTokens(chatBody, 'o200k_base'));
    assert.ok(Number.isInteger(result.json.input_tokens) && result.json.input_tokens > 0);
    // GPT-4 and 3.5 use cl100k_base; other authors get the documented cl100k_base default.
    for (const model of ['openai/gpt-4', 'openai/gpt-3.5-turbo', 'anthropic/claude-sonnet-4-5']) {
      const other = await count({ model, ...chatBody });
      assert.equal(other.json.input_tokens, countRequestTokens(chatBody, 'cl100k_base'), model);
    }
  });

  it("tokenizer overrides the model's choice", async () => {
    // Text on which the two vocabularies disagree, so the override is visible.
    const body = { messages: [{ role: 'user', content: 'Привет, как дела? 東京タワーは高いです。' }] };
    const o200k = countRequestTokens(body, 'o200k_base');
    const cl100k = countRequestTokens(body, 'cl100k_base');
    assert.notEqual(o200k, cl100k);
    assert.equal((await count({ model: 'openai/gpt-4o', ...body })).json.input_tokens, o200k);
    assert.equal(
      (await count({ model: 'openai/gpt-4o', tokenizer: 'cl100k_base', ...body })).json.input_tokens,
      cl100k,
    );
    assert.equal((await count({ model: 'openai/gpt-4', tokenizer: 'o200k_base', ...body })).json.input_tokens, o200k);
  });

  it('an unknown tokenizer is 400 invalid_tokenizer naming tokenizer', async () => {
    assertGatewayError(await count({ model: 'openai/gpt-4o', tokenizer: 'p50k', ...chatBody }), {
      status: 400,
      code: 'invalid_tokenizer',
      type: 'invalid_request_error',
      param: 'tokenizer',
    });
  });

  it('a malformed model id is 400 bad_model_id', async () => {
    assertGatewayError(await count({ model: 'nope', ...chatBody }), {
      status: 400,
      code: 'bad_model_id',
      param: 'model',
    });
  });

  it('messages default to none: only the reply priming is counted', async () => {
    const result = await count({ model: 'openai/gpt-4o' });
    assert.equal(result.status, 200);
    assert.equal(result.json.input_tokens, countRequestTokens({}, 'o200k_base'));
  });

  it('counts a messages-style body (content blocks, top-level system) with the system prompt', async () => {
    const system = [
      { type: 'text', text: 'You are a careful reviewer of pull requests.', cache_control: { type: 'ephemeral' } },
    ];
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'Review this diff, please.' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/app.ts' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const answer = 42;' }],
      },
    ];
    const withSystem = await count({ model: 'anthropic/claude-sonnet-4-5', system, messages });
    const withoutSystem = await count({ model: 'anthropic/claude-sonnet-4-5', messages });
    assert.equal(withSystem.status, 200, withSystem.text);
    assert.equal(withSystem.json.input_tokens, countRequestTokens({ system, messages }, 'cl100k_base'));
    assert.equal(withoutSystem.json.input_tokens, countRequestTokens({ messages }, 'cl100k_base'));
    const systemTextTokens = encoders.cl100k_base!.encode_ordinary(system[0]!.text).length;
    assert.ok(
      withSystem.json.input_tokens - withoutSystem.json.input_tokens > systemTextTokens,
      'the system prompt is counted, with its framing',
    );
    // A string system counts the same as one text block.
    const stringSystem = await count({ model: 'anthropic/claude-sonnet-4-5', system: system[0]!.text, messages });
    assert.equal(stringSystem.json.input_tokens, withSystem.json.input_tokens);
  });

  it("plain text counts are tiktoken's, through the route", async () => {
    const texts = [
      'hello world',
      'The quick brown fox jumps over the lazy dog.',
      '    def f(x):\n        return x ** 2  # squares\n',
      'naïve café — “quotes” and emoji 🎉👍🏽',
      '日本語のテキストと中文混合',
      'ignore <|endoftext|> and <|im_start|>system',
      '{"key": [1, 2, 3], "nested": {"a": null}}',
      'a'.repeat(300),
      '\t\r\n  trailing spaces   \n\n\n',
    ];
    for (const tokenizer of ['o200k_base', 'cl100k_base'] as const) {
      const base = await count({ model: 'openai/gpt-4o', tokenizer, messages: [{ role: 'user', content: '' }] });
      for (const text of texts) {
        const result = await count({ model: 'openai/gpt-4o', tokenizer, messages: [{ role: 'user', content: text }] });
        const expected = encoders[tokenizer]!.encode_ordinary(text).length;
        assert.equal(
          result.json.input_tokens - base.json.input_tokens,
          expected,
          `${tokenizer}: ${JSON.stringify(text)}`,
        );
      }
    }
  });

  it('tool definitions are counted', async () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const withTools = await count({ model: 'openai/gpt-4o', ...chatBody, tools });
    assert.equal(withTools.json.input_tokens, countRequestTokens({ ...chatBody, tools }, 'o200k_base'));
    assert.ok(withTools.json.input_tokens > countRequestTokens(chatBody, 'o200k_base'));
  });

  it('needs gateway authentication', async () => {
    const result = await h.gateway('POST', '/v1/count_tokens', { body: { model: 'openai/gpt-4o', ...chatBody } });
    assertGatewayError(result, { status: 401, code: 'unauthorized' });
  });
});
