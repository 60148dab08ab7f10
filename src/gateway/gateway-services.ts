import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { Store } from '../store/database.js';
import type { KeyAuthenticator } from './auth/key-authenticator.js';
import type { UsageWriter } from '../metering/usage-writer.js';
import type { BudgetLedger } from '../limits/budget-ledger.js';
import type { RetryOptions } from '../providers/index.js';
import type { GatewayToolsService } from '../gateway-tools/service.js';
import type { ConversationStore } from '../compress/conversation-request.js';

export interface UpstreamPolicy {
  timeouts: { connectMs: number; firstByteMs: number; betweenChunksMs: number };
  retry: Required<RetryOptions>;
}

/** What the gateway's routes need, built once at start-up (see server/start.ts). */
export interface GatewayServices {
  store: Store;
  catalogue: Catalogue;
  authenticator: KeyAuthenticator;
  usage: UsageWriter;
  budget: BudgetLedger;
  upstream: UpstreamPolicy;
  /** Concurrent requests this instance accepts before answering 503 overloaded. */
  maxConcurrency: number;
  logger: Logger;
  /** Built-in gateway tools; without it no tool is ever injected. */
  gatewayTools?: GatewayToolsService;
  /** Compression's per-conversation state (src/store/compression-conversations.ts); without it compression is stateless. */
  compression?: ConversationStore;
}
