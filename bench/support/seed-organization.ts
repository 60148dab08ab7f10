import { openStore } from '../../src/store/database.js';
import { createConsoleToken } from '../../src/store/console-tokens.js';
import { ensureOrganization } from '../../src/store/organizations.js';

/**
 * An organization and an admin console token for it (named `slug`) in the SQLite store of
 * `dataDir`, migrated by the gateway's own code, before the benchmarked gateway starts on it.
 */
export async function seedOrganization(
  dataDir: string,
  slug: string,
  name: string,
): Promise<{ organizationId: string; token: string }> {
  const setup = await openStore({ dataDir });
  const { organization } = await ensureOrganization(setup, slug, name);
  const { secret: token } = await createConsoleToken(setup, {
    organizationId: organization.id,
    name: slug,
    permission: 'admin',
  });
  await setup.close();
  return { organizationId: organization.id, token };
}
