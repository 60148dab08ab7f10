import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Keyring } from '../secrets/keyring.js';
import { OrganizationAccess } from '../pipeline/organization-access.js';
import { ProviderKeyRepository } from '../store/provider-keys.js';
import { AllowListRepository } from '../store/organization-allow-lists.js';

/**
 * Organizations' own provider keys and allow-lists (docs/byok.md), shared by the gateway (routing)
 * and the console (its changes take effect on this instance at once).
 */
export function createOrganizationAccess(store: Store, keyring: Keyring, logger: Logger): OrganizationAccess {
  return new OrganizationAccess(new ProviderKeyRepository(store, keyring), new AllowListRepository(store), {
    onUnreadableKey: (organizationId, providerId, error) =>
      logger.error(
        { organizationId, providerId, error: error.message },
        "an organization's provider key cannot be opened by the keyring; the operator's key serves that provider",
      ),
  });
}
