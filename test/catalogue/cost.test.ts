import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { costMicroUsd, worstCaseMicroUsd } from '../../src/catalogue/cost.js';
import { convertOpenAIUsage } from '../../src/providers/openai/convert-usage.js';
import { convertAnthropicUsage } from '../../src/providers/anthropic/convert-usage.js';

/** Claude-like prices, USD per MTok: $3 in, $15 out, $0.30 a cached read, $3.75 a cache write. */
const PRICING = { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, cache_write_per_mtok: 3.75 };

describe('cost of a request', () => {
  it('prices cache writes at the cache-write price and cached reads at the read price', () => {
    // 10,000 prompt tokens: 6,000 read from the cache, 3,000 written to it, 1,000 plain; 500 out.
    const usage = {
      inputTokens: 10_000,
      cachedInputTokens: 6_000,
      cacheCreationInputTokens: 3_000,
      outputTokens: 500,
      reasoningTokens: 0,
    };
    assert.equal(costMicroUsd(PRICING, usage), 1_000 * 3 + 6_000 * 0.3 + 3_000 * 3.75 + 500 * 15);
  });

  it('a model without cache prices bills both at the input price', () => {
    const plain = { input_per_mtok: 2, output_per_mtok: 8 };
    const usage = {
      inputTokens: 100,
      cachedInputTokens: 40,
      cacheCreationInputTokens: 30,
      outputTokens: 0,
      reasoningTokens: 0,
    };
    assert.equal(costMicroUsd(plain, usage), 200);
  });

  it('inconsistent upstream counts never bill more tokens than the prompt had', () => {
    const usage = {
      inputTokens: 100,
      cachedInputTokens: 80,
      cacheCreationInputTokens: 80,
      outputTokens: 0,
      reasoningTokens: 0,
    };
    assert.equal(costMicroUsd(PRICING, usage), Math.round(80 * 0.3 + 20 * 3.75));
  });

  it('the worst case prices the prompt at the dearest input price, the cache write', () => {
    assert.equal(worstCaseMicroUsd(PRICING, 1_000, 100), Math.ceil(1_000 * 3.75 + 100 * 15));
  });

  it('cache writes are read from Anthropic and from OpenAI-compatible upstreams that report them', () => {
    const anthropic = convertAnthropicUsage({
      input_tokens: 1_000,
      cache_read_input_tokens: 6_000,
      cache_creation_input_tokens: 3_000,
      output_tokens: 500,
    });
    assert.deepEqual(anthropic, {
      inputTokens: 10_000,
      cachedInputTokens: 6_000,
      cacheCreationInputTokens: 3_000,
      outputTokens: 500,
      reasoningTokens: 0,
    });
    const openRouter = convertOpenAIUsage({
      prompt_tokens: 10_000,
      completion_tokens: 500,
      prompt_tokens_details: { cached_tokens: 6_000, cache_write_tokens: 3_000 },
    });
    assert.deepEqual(openRouter, anthropic);
    const gateway = convertOpenAIUsage({
      prompt_tokens: 10_000,
      completion_tokens: 500,
      input_tokens_details: { cached_tokens: 6_000, cache_creation_tokens: 3_000 },
    });
    assert.deepEqual(gateway, anthropic);
    assert.equal(convertOpenAIUsage({ prompt_tokens: 10 }).cacheCreationInputTokens, 0, 'OpenAI reports none');
  });
});
