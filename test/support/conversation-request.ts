import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import type { ConversationRequest } from '../../src/compress/conversation-request.js';

/**
 * One request of a conversation to an Anthropic model at Sonnet's list prices, compression on,
 * the cache managed but no hints written into the body: what the engine tests send unless `over`
 * says otherwise.
 */
export function anthropicConversationRequest(
  over: Partial<ConversationRequest> & Pick<ConversationRequest, 'store'>,
): ConversationRequest {
  return {
    apiKeyId: 'key_1',
    sessionId: 'session-1',
    compress: true,
    bundle: undefined,
    provider: { kind: 'anthropic', id: 'anthropic', baseUrl: undefined },
    pricing: cachePricingFor('anthropic', { input_per_mtok: 3, output_per_mtok: 15 }),
    manageCache: true,
    addCacheHints: false,
    now: 1_000_000,
    ...over,
  };
}
