import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { ApiKeyRepository } from '../store/api-keys.js';
import type { KeyAuthenticator } from '../gateway/auth/key-authenticator.js';
import type { ConsoleCollectorServices } from './routes/console-collector-services.js';
import type { GatewayToolsService } from '../gateway-tools/service.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { BroadcastReload } from '../server/reload-broadcast.js';
import type { OrganizationAccess } from '../pipeline/organization-access.js';
import type { AlertRuleRepository } from '../store/alert-rules.js';
import type { AlertFiringRepository } from '../store/alert-firings.js';
import type { TargetPolicy } from '../server/address-guard.js';

export interface ConsoleServices {
  store: Store;
  apiKeys: ApiKeyRepository;
  /** Shared with the gateway so a change made here takes effect on this instance at once. */
  authenticator: KeyAuthenticator;
  logger: Logger;
  /** Projects, components, tokens, export and the collector's data (issue 6). */
  collector: ConsoleCollectorServices;
  /** Shared with the gateway, like the authenticator: a tool setting changed here applies at once. */
  gatewayTools?: GatewayToolsService;
  /** Model prices, to put a price on what compression and caching saved (usage/savings). */
  catalogue: Catalogue;
  /** Alert rules and fired alerts (docs/alerts.md); `targets`: which webhook addresses a rule may name. Absent: no alert routes. */
  alerts?: {
    rules: AlertRuleRepository;
    firings: AlertFiringRepository;
    targets: TargetPolicy;
    /** A rule of the organization was created, changed or deleted: this instance's evaluator reads them again. */
    rulesChanged?: (organizationId: string) => void;
  };
  /** POST /v1/admin/reload: reloads this instance, then every instance of the store; absent: no such route. */
  reload?: (requestedBy: string) => Promise<BroadcastReload>;
  /** Organizations' provider keys and allow-lists, shared with the gateway (docs/byok.md); absent: no such routes. */
  organizationAccess?: OrganizationAccess;
}
