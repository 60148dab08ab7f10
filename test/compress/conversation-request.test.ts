import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import type { ProviderKind } from '../../src/canonical/provider-kinds.js';
import { conversationId } from '../../src/compress/conversation-id.js';
import { compressConversationRequest, type ConversationRequest } from '../../src/compress/conversation-request.js';

/**
 * The conversation id hashes the first user message, which can be megabytes, on the event loop:
 * it is computed only when something uses it (the engine's state, OpenAI's prompt_cache_key).
 */
function request(kind: ProviderKind, id: string, overrides: Partial<ConversationRequest> = {}): ConversationRequest {
  return {
    apiKeyId: 'key_1',
    sessionId: undefined,
    compress: false,
    bundle: undefined,
    provider: { kind, id, baseUrl: undefined },
    pricing: cachePricingFor(kind, { input_per_mtok: 1, output_per_mtok: 2 }),
    manageCache: true,
    addCacheHints: true,
    store: undefined,
    now: 0,
    ...overrides,
  };
}

/** A chat body whose first user message counts how often its content is read. */
function watchedBody(): { body: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const message = {
    role: 'user',
    get content() {
      reads++;
      return 'a'.repeat(1000);
    },
  };
  return { body: { model: 'm', messages: [message] }, reads: () => reads };
}

describe('conversation request: the conversation id', () => {
  it('is not computed when nothing uses it (no compression, no prompt_cache_key)', async () => {
    const { body, reads } = watchedBody();
    const result = await compressConversationRequest(body, request('local', 'local'));
    assert.equal(result.body, body, 'the body goes on untouched');
    assert.equal(reads(), 0, 'the first user message was not read (hashed)');
  });

  it('names OpenAI prompt_cache_key after the same hash as before', async () => {
    const { body, reads } = watchedBody();
    const expected = conversationId(body);
    const before = reads();
    const result = await compressConversationRequest(body, request('openai', 'openai'));
    assert.equal(result.body.prompt_cache_key, `gw-${expected.slice(0, 40)}`);
    assert.ok(reads() > before);
    assert.equal(result.conversationId, expected);
  });
});
