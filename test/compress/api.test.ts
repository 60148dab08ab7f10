import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  COMPRESSION_MODELS,
  CompressionInputError,
  compressPayload,
  compressionRate,
  detectFormat,
  isCompressionModel,
} from '../../src/compress/index.js';
import { build, SHAPES, type Dialogue } from './helpers/build.js';
import { fixtureText, observations } from './helpers/fixtures.js';

const dialogue: Dialogue = {
  system: 'You are a coding agent.',
  task: 'Fix the failing test.',
  turns: [
    {
      assistant: 'Install first.',
      calls: [
        {
          id: 'call_1',
          name: 'bash',
          args: { command: 'pip install -e .[dev]' },
          output: observations.pip_install.output,
        },
      ],
    },
    {
      assistant: 'Run tests.',
      calls: [
        {
          id: 'call_2',
          name: 'bash',
          args: { command: 'pytest -v' },
          output: fixtureText('pytest-verbose-failure.txt'),
        },
      ],
    },
  ],
};

function rejects(body: unknown, param: string | null, options = {}) {
  assert.throws(
    () => compressPayload(body, options),
    (e: unknown) => e instanceof CompressionInputError && e.code === 'invalid_request' && e.param === param,
  );
}

describe('POST /v1/compress rules (4.1)', () => {
  it('rule 1: `system` → messages style, else `input` → responses, else chat', () => {
    assert.equal(detectFormat({ system: 'x', input: [], messages: [] }), 'messages');
    assert.equal(detectFormat({ input: 'hi', messages: [] }), 'responses');
    assert.equal(detectFormat({ messages: [] }), 'chat');
  });

  for (const shape of SHAPES) {
    it(`${shape}: only messages / input / system / tools may change; other fields pass through`, () => {
      const body = build(dialogue, shape);
      const { body: out } = compressPayload(body);
      for (const key of Object.keys(body)) {
        if (['messages', 'input', 'system', 'tools'].includes(key)) continue;
        assert.deepEqual(out[key], body[key], key);
      }
      assert.deepEqual(Object.keys(out).sort(), Object.keys(body).sort());
    });

    it(`${shape}: the compression object is always complete`, () => {
      const { compression } = compressPayload(build(dialogue, shape));
      assert.equal(compression.technique, 'auto');
      assert.ok(compression.applied_strategies.includes('tool_result_trimming'));
      assert.ok(compression.compressed_input_tokens < compression.uncompressed_input_tokens);
      assert.ok(
        Number.isInteger(compression.uncompressed_input_tokens) &&
          Number.isInteger(compression.compressed_input_tokens),
      );
      assert.equal(
        compression.compression_rate,
        compressionRate(compression.uncompressed_input_tokens, compression.compressed_input_tokens),
      );
      assert.ok(Number.isInteger(compression.compression_time_ms) && compression.compression_time_ms >= 0);
    });
  }

  it('technique is tool when a compression model (bundle) is requested, auto otherwise', () => {
    const body = build(dialogue, 'chat');
    assert.equal(compressPayload(body).compression.technique, 'auto');
    assert.equal(compressPayload({ ...body, compression_model: 'codex' }).compression.technique, 'tool');
    assert.equal(compressPayload(body, { bundle: 'claude' }).compression.technique, 'tool');
  });

  it('compression_rate is the fraction removed: 1000 → 810 gives 0.19', () => {
    assert.equal(compressionRate(1000, 810), 0.19);
    assert.equal(compressionRate(1000, 1000), 0);
    assert.equal(compressionRate(0, 0), 0);
  });

  it('a request with nothing worth compressing comes back unchanged, rate 0, no strategies', () => {
    const body = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hello' }] };
    const { body: out, compression } = compressPayload(body);
    assert.equal(out, body);
    assert.deepEqual(compression.applied_strategies, []);
    assert.equal(compression.compression_rate, 0);
    assert.equal(compression.compressed_input_tokens, compression.uncompressed_input_tokens);
  });

  it('the input body is never mutated', () => {
    const body = build(dialogue, 'chat');
    const copy = structuredClone(body);
    compressPayload(body);
    assert.deepEqual(body, copy);
  });

  it('rule 5: bodies that cannot be converted give invalid_request naming the parameter', () => {
    rejects('not an object', null);
    rejects([1, 2], null);
    rejects({ model: 'm' }, 'messages');
    rejects({ model: 'm', messages: [] }, 'messages');
    rejects({ model: 'm', messages: 'hi' }, 'messages');
    rejects({ model: 'm', messages: [{ content: 'no role' }] }, 'messages[0].role');
    rejects({ model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id');
    rejects(
      {
        model: 'm',
        messages: [{ role: 'assistant', tool_calls: [{ id: 1, function: { name: 'f', arguments: '{}' } }] }],
      },
      'messages[0].tool_calls[0].id',
    );
    rejects(
      { model: 'm', system: 'x', messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] },
      'messages[0].content[0].tool_use_id',
    );
    rejects({ model: 'm', system: 7, messages: [{ role: 'user', content: 'x' }] }, 'system');
    rejects({ model: 'm', input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id');
    rejects({ model: 'm', input: 5 }, 'input');
    rejects({ model: 'm', input: 'x', tools: [{ type: 'function' }] }, 'tools[0].name');
  });

  it('a string `input` counts as one user message and is returned as is', () => {
    const body = { model: 'openai/gpt-4o', input: 'What is 2+2?' };
    const { body: out, compression } = compressPayload(body);
    assert.deepEqual(out, body);
    assert.ok(compression.uncompressed_input_tokens > 0);
  });
});

describe('bundles (compression_model)', () => {
  it('lists the four agent bundles', () => {
    assert.deepEqual([...COMPRESSION_MODELS], ['claude', 'codex', 'opencode', 'cursor']);
    for (const m of COMPRESSION_MODELS) assert.ok(isCompressionModel(m));
    assert.ok(!isCompressionModel('Claude'));
    assert.ok(!isCompressionModel(undefined));
  });

  it('an unknown value is a 400 naming compression_model, from options or from the body', () => {
    rejects(build(dialogue, 'chat'), 'compression_model', { bundle: 'gemini' });
    rejects({ ...build(dialogue, 'chat'), compression_model: 'vim' }, 'compression_model');
  });

  it('the body member selects a bundle and passes through unchanged', () => {
    const body = { ...build(dialogue, 'chat'), compression_model: 'codex' };
    const { body: out } = compressPayload(body);
    assert.equal(out.compression_model, 'codex');
  });
});
