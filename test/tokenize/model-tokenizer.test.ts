import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTokenizerName, tokenizerForModel } from '../../src/tokenize/index.js';

describe('tokenizerForModel', () => {
  const cases: [string, string][] = [
    ['openai/gpt-4o', 'o200k_base'],
    ['openai/gpt-4o-mini', 'o200k_base'],
    ['openai/gpt-4o-2024-08-06', 'o200k_base'],
    ['openai/chatgpt-4o-latest', 'o200k_base'],
    ['openai/gpt-4.1', 'o200k_base'],
    ['openai/gpt-4.1-nano', 'o200k_base'],
    ['openai/gpt-4.5-preview', 'o200k_base'],
    ['openai/gpt-5', 'o200k_base'],
    ['openai/gpt-5-mini', 'o200k_base'],
    ['openai/o1', 'o200k_base'],
    ['openai/o1-mini', 'o200k_base'],
    ['openai/o3-pro', 'o200k_base'],
    ['openai/o4-mini', 'o200k_base'],
    ['openai/gpt-oss-120b', 'o200k_base'],
    ['openai/gpt-4', 'cl100k_base'],
    ['openai/gpt-4-0613', 'cl100k_base'],
    ['openai/gpt-4-32k', 'cl100k_base'],
    ['openai/gpt-4-turbo', 'cl100k_base'],
    ['openai/gpt-4-turbo-2024-04-09', 'cl100k_base'],
    ['openai/gpt-3.5-turbo', 'cl100k_base'],
    ['azure/gpt-35-turbo', 'cl100k_base'],
    ['openai/text-embedding-ada-002', 'cl100k_base'],
    ['openai/text-embedding-3-small', 'cl100k_base'],
    ['openai/text-embedding-3-large', 'cl100k_base'],
    ['openai/some-future-model', 'o200k_base'],
    ['OpenAI/GPT-4O', 'o200k_base'],
    ['azure/gpt-4o', 'o200k_base'],
    ['gpt-4o', 'o200k_base'],
    ['gpt-4', 'cl100k_base'],
    ['anthropic/claude-sonnet-4', 'cl100k_base'],
    ['anthropic/claude-3-5-haiku-20241022', 'cl100k_base'],
    ['google/gemini-2.5-pro', 'cl100k_base'],
    ['mistral/mistral-large-latest', 'cl100k_base'],
    ['meta/llama-3.1-70b-instruct', 'cl100k_base'],
    ['local/qwen2.5-coder', 'cl100k_base'],
    ['claude-sonnet-4', 'cl100k_base'],
  ];
  for (const [model, tokenizer] of cases) {
    it(`maps ${model} to ${tokenizer}`, () => assert.equal(tokenizerForModel(model), tokenizer));
  }

  it('does not mistake names that merely start like an o-series model', () => {
    assert.equal(tokenizerForModel('local/o1x'), 'cl100k_base');
    assert.equal(tokenizerForModel('local/opus'), 'cl100k_base');
  });
});

describe('isTokenizerName', () => {
  it('accepts the two encodings and nothing else', () => {
    assert.ok(isTokenizerName('cl100k_base'));
    assert.ok(isTokenizerName('o200k_base'));
    for (const bad of ['p50k_base', 'O200K_BASE', '', 7, null, undefined]) assert.equal(isTokenizerName(bad), false);
  });
});
