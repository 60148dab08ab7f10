import { spawnSync } from 'node:child_process';
import type { Store } from '../store/database.js';
import { OrganizationMemberRepository, type OrganizationMember } from '../store/organization-members.js';

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** `git config user.email` where launch runs, or undefined (no git, not set, or too slow). */
export function gitUserEmail(cwd = process.cwd()): string | undefined {
  const result = spawnSync('git', ['config', 'user.email'], { cwd, encoding: 'utf8', timeout: 2_000 });
  const email = result.status === 0 ? result.stdout.trim() : '';
  return EMAIL.test(email) && email.length <= 320 ? email : undefined;
}

/**
 * The member `gateway launch` makes its key for (docs/members.md, "launch"):
 * - `--member <email>`: that active member, else an error (invite them first), except in an
 *   organization without members, where the address becomes its first owner;
 * - otherwise `git config user.email` when it is an active member;
 * - otherwise the organization's owner;
 * - in an organization without members, the git address becomes its first owner; without one
 *   the key is the organization's own (null), as before members existed.
 * Whoever runs launch holds the store and its master key, so creating the first owner here is
 * no more than what `admin bootstrap --email` does.
 */
export async function launchMember(
  store: Store,
  organizationId: string,
  explicit: string | undefined,
  gitEmail: string | undefined,
): Promise<OrganizationMember | null> {
  const members = new OrganizationMemberRepository(store);
  const empty = (await members.count(organizationId)) === 0;
  if (explicit !== undefined) {
    if (!EMAIL.test(explicit) || explicit.length > 320)
      throw new Error(`--member must be an email address: ${explicit}`);
    if (empty) return members.addActive({ organizationId, email: explicit, role: 'owner' });
    const member = await members.findByEmail(organizationId, explicit);
    if (member?.status !== 'active')
      throw new Error(
        `--member ${explicit} is not an active member of this organization: invite them in the console first`,
      );
    return member;
  }
  if (gitEmail !== undefined) {
    if (empty) return members.addActive({ organizationId, email: gitEmail, role: 'owner' });
    const member = await members.findByEmail(organizationId, gitEmail);
    if (member?.status === 'active') return member;
  }
  return (await members.activeOwner(organizationId)) ?? null;
}
