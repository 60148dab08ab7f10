import { readSettings } from '../config/settings.js';
import { openStore } from '../store/database.js';
import { ensureOrganization } from '../store/organizations.js';
import { createConsoleToken } from '../store/console-tokens.js';
import { OrganizationMemberRepository } from '../store/organization-members.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * `gateway admin bootstrap`: the only place a full-rights console token is ever shown. With
 * `--email` the address becomes an active owner of the organization (made, or promoted) and the
 * token signs in as that owner (docs/members.md); without it the token is organization-wide.
 */
export async function bootstrap(input: {
  slug: string;
  name?: string | undefined;
  email?: string | undefined;
}): Promise<void> {
  if (!SLUG.test(input.slug))
    throw new Error('--org must be a slug: lowercase letters, digits and dashes, at most 63 characters');
  if (input.email !== undefined && (!EMAIL.test(input.email) || input.email.length > 320))
    throw new Error('--email must be an email address');
  const settings = readSettings();
  const store = await openStore({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    schema: settings.databaseSchema,
  });
  try {
    const { organization } = await ensureOrganization(store, input.slug, input.name ?? input.slug);
    const owner = input.email === undefined ? undefined : await ensureOwner(store, organization.id, input.email);
    const { secret } = await createConsoleToken(store, {
      organizationId: organization.id,
      name: 'bootstrap',
      permission: 'admin',
      memberId: owner?.id ?? null,
    });
    process.stdout.write(
      JSON.stringify({
        organization_id: organization.id,
        organization_slug: organization.slug,
        console_token: secret,
        ...(owner ? { member_id: owner.id, member_email: owner.email } : {}),
      }) + '\n',
    );
  } finally {
    await store.close();
  }
}

/** The address as an active owner: added when absent, promoted when a member of another role. */
async function ensureOwner(store: Parameters<typeof ensureOrganization>[0], organizationId: string, email: string) {
  const members = new OrganizationMemberRepository(store);
  const member = await members.addActive({ organizationId, email, role: 'owner' });
  if (member.role === 'owner') return member;
  const promoted = await members.update(organizationId, member.id, { role: 'owner' });
  if (!promoted || promoted === 'last_owner') throw new Error(`${email} could not be made an owner`);
  return promoted;
}
