import type { Store } from '../store/database.js';
import type { KeyAuthenticator } from './auth/key-authenticator.js';
import type { CoreServices } from '../pipeline/services.js';
import type { RouteBodyLimits } from '../config/route-limits.js';

export type { UpstreamPolicy } from '../pipeline/services.js';

/** What the gateway's routes need, built once at start-up (see wiring/start.ts): the core's services and the surface's own. */
export interface GatewayServices extends CoreServices {
  store: Store;
  authenticator: KeyAuthenticator;
  /** Concurrent requests this instance accepts before answering 503 overloaded. */
  maxConcurrency: number;
  /** Body limits of the routes that take big inputs; absent: the listener's limit for all. */
  bodyLimits?: RouteBodyLimits;
  /** Refusals of one key stored for the console's Logs page per minute (gateway/refused-requests.ts); absent: 60. */
  storedRefusalsPerKeyPerMinute?: number;
}
