import type { Logger } from 'pino';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { Store } from '../store/database.js';
import type { KeyAuthenticator } from './auth/key-authenticator.js';

/** What the gateway's routes need, built once at start-up (see server/start.ts). */
export interface GatewayServices {
  store: Store;
  catalogue: Catalogue;
  authenticator: KeyAuthenticator;
  logger: Logger;
}
