import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { UsageWriter } from '../metering/usage-writer.js';
import type { BudgetLedger } from '../limits/budget-ledger.js';
import type { KeyLimitDirectory } from '../limits/key-limits.js';
import type { RetryOptions } from '../providers/index.js';
import type { GatewayToolsService } from '../gateway-tools/service.js';
import type { Tracing } from '../telemetry/tracing.js';
import type { ConversationStore } from '../compress/conversation-request.js';
import type { StoredResponses } from '../store/stored-responses.js';
import type { OrganizationAccess } from './organization-access.js';
import type { DebugCaptureSink } from '../metering/debug-capture-writer.js';

export interface UpstreamPolicy {
  timeouts: { connectMs: number; firstByteMs: number; betweenChunksMs: number };
  retry: Required<RetryOptions>;
}

/** What the call core needs, built once at start-up (wiring/start.ts); the gateway surface adds its own. */
export interface CoreServices {
  catalogue: Catalogue;
  usage: UsageWriter;
  budget: BudgetLedger;
  /** Spend limits by window and per-minute rates of keys, members and groups (docs/limits.md); absent: none apply. */
  limits?: KeyLimitDirectory | undefined;
  upstream: UpstreamPolicy;
  logger: Logger;
  /** Built-in gateway tools; without it no tool is ever injected. */
  gatewayTools?: GatewayToolsService | undefined;
  /** Request traces (OpenTelemetry); absent or disabled: nothing is built for them. */
  tracing?: Tracing | undefined;
  /** Compression's per-conversation state (src/store/compression-conversations.ts); absent: compression is stateless. */
  compression?: ConversationStore | undefined;
  /**
   * The stored context of responses the gateway returned (src/store/stored-responses.ts); absent:
   * a request that continues one is refused on keys with a ceiling, as if it were unknown.
   */
  storedResponses?: StoredResponses | undefined;
  /**
   * Organizations' own provider keys and allow-lists (BYOK, docs/byok.md); absent: every
   * organization uses the operator's keys and may use every model.
   */
  organizationAccess?: OrganizationAccess | undefined;
  /** Where requests of keys in debug capture go (docs/debug-capture.md); absent: nothing is captured. */
  debugCaptures?: DebugCaptureSink | undefined;
}
