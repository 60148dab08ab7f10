import { readSettings } from '../config/settings.js';
import { openStore } from '../store/database.js';
import { ensureOrganization } from '../store/organizations.js';
import { createConsoleToken } from '../store/console-tokens.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** `gateway admin bootstrap`: the only place a full-rights console token is ever shown. */
export async function bootstrap(input: { slug: string; name?: string | undefined }): Promise<void> {
  if (!SLUG.test(input.slug))
    throw new Error('--org must be a slug: lowercase letters, digits and dashes, at most 63 characters');
  const settings = readSettings();
  const store = await openStore({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    schema: settings.databaseSchema,
  });
  try {
    const { organization } = await ensureOrganization(store, input.slug, input.name ?? input.slug);
    const { secret } = await createConsoleToken(store, {
      organizationId: organization.id,
      name: 'bootstrap',
      permission: 'admin',
    });
    process.stdout.write(
      JSON.stringify({
        organization_id: organization.id,
        organization_slug: organization.slug,
        console_token: secret,
      }) + '\n',
    );
  } finally {
    await store.close();
  }
}
