import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { ConsoleTokensTable } from './schema.js';
import { CONSOLE_TOKEN_PREFIX, digestSecret, generateSecret } from '../secrets/secret-codec.js';

export type ConsoleToken = ConsoleTokensTable;
export type ConsolePermission = ConsoleTokensTable['permission'];

/** Console tokens are stored as digests only: the secret is returned here once and never again. */
export async function createConsoleToken(
  store: Store,
  input: {
    organizationId: string;
    name: string;
    permission: ConsolePermission;
    expiresAt?: number | null;
    /** The member the token signs in as (an accepted invite); absent: an organization-wide token. */
    memberId?: string | null;
  },
): Promise<{ token: ConsoleToken; secret: string }> {
  const secret = generateSecret(CONSOLE_TOKEN_PREFIX);
  const token: ConsoleToken = {
    id: randomUUID(),
    organization_id: input.organizationId,
    name: input.name,
    token_digest: digestSecret(secret),
    permission: input.permission,
    created_at: Date.now(),
    expires_at: input.expiresAt ?? null,
    last_used_at: null,
    ...(input.memberId ? { member_id: input.memberId } : {}),
  };
  await store.db.insertInto('console_tokens').values(token).execute();
  return { token, secret };
}

/**
 * Lookup is by digest equality in the database index; the digest of a guessed secret reveals
 * nothing about stored ones, so an indexed lookup is not a timing oracle for the secret itself.
 */
export async function findConsoleTokenBySecret(store: Store, secret: string): Promise<ConsoleToken | undefined> {
  return store.db
    .selectFrom('console_tokens')
    .selectAll()
    .where('token_digest', '=', digestSecret(secret))
    .executeTakeFirst();
}
