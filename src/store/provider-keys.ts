import { randomUUID } from 'node:crypto';
import type { Store } from './database.js';
import type { OrganizationProviderKeysTable } from './schema.js';
import type { Keyring } from '../secrets/keyring.js';
import { isUniqueViolation } from './unique-violation.js';

/** What is known of a stored provider key once it is stored: never the key itself. */
export interface ProviderKeyInfo {
  id: string;
  organizationId: string;
  providerId: string;
  /** `…` and the key's last 4 characters (nothing of a key shorter than 12). */
  hint: string;
  createdAt: number;
  updatedAt: number;
}

/** Provider keys one organization may hold: one per provider, and no more than this many providers. */
export const MAX_PROVIDER_KEYS_PER_ORGANIZATION = 64;

/** The AES-GCM associated data binds a ciphertext to its row, so rows cannot swap keys. */
export const providerKeySealContext = (id: string) => `provider_key:${id}`;

/** Enough to tell two keys apart, too little to help guess one; a short key shows nothing. */
export function keyHint(secret: string): string {
  return secret.length >= 12 ? `…${secret.slice(-4)}` : '…';
}

function toInfo(row: OrganizationProviderKeysTable): ProviderKeyInfo {
  return {
    id: row.id,
    organizationId: row.organization_id,
    providerId: row.provider_id,
    hint: row.key_hint,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type AddOutcome = { outcome: 'created'; key: ProviderKeyInfo } | { outcome: 'exists' | 'too_many' };
export type RotateOutcome = { outcome: 'rotated'; key: ProviderKeyInfo } | { outcome: 'missing' };

/**
 * An organization's own provider keys (BYOK, migration 029), sealed with the keyring like gateway
 * keys. Nothing here returns a key except `secretsOf`, which the gateway's routing alone calls.
 */
export class ProviderKeyRepository {
  constructor(
    private readonly store: Store,
    private readonly keyring: Keyring,
  ) {}

  async list(organizationId: string): Promise<ProviderKeyInfo[]> {
    const rows = await this.store.db
      .selectFrom('organization_provider_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('provider_id')
      .limit(MAX_PROVIDER_KEYS_PER_ORGANIZATION)
      .execute();
    return rows.map(toInfo);
  }

  /** Adds the organization's key for a provider: `exists` when it has one (rotate it instead). */
  async add(organizationId: string, providerId: string, secret: string): Promise<AddOutcome> {
    const held = await this.store.db
      .selectFrom('organization_provider_keys')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow();
    // Racing adds may pass this check together; the bound is soft by at most the racers, each one row.
    if (Number(held.n) >= MAX_PROVIDER_KEYS_PER_ORGANIZATION) return { outcome: 'too_many' };
    const now = Date.now();
    const id = randomUUID();
    const row: OrganizationProviderKeysTable = {
      id,
      organization_id: organizationId,
      provider_id: providerId,
      key_ciphertext: this.keyring.seal(secret, providerKeySealContext(id)),
      key_hint: keyHint(secret),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.store.db.insertInto('organization_provider_keys').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) return { outcome: 'exists' };
      throw error;
    }
    return { outcome: 'created', key: toInfo(row) };
  }

  /** Replaces the organization's key for a provider: `missing` when it has none. */
  async rotate(organizationId: string, providerId: string, secret: string): Promise<RotateOutcome> {
    const row = await this.row(organizationId, providerId);
    if (!row) return { outcome: 'missing' };
    const now = Date.now();
    const changes = {
      key_ciphertext: this.keyring.seal(secret, providerKeySealContext(row.id)),
      key_hint: keyHint(secret),
      updated_at: now,
    };
    const result = await this.store.db
      .updateTable('organization_provider_keys')
      .set(changes)
      .where('id', '=', row.id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return { outcome: 'missing' };
    return { outcome: 'rotated', key: toInfo({ ...row, ...changes }) };
  }

  async remove(organizationId: string, providerId: string): Promise<boolean> {
    const result = await this.store.db
      .deleteFrom('organization_provider_keys')
      .where('organization_id', '=', organizationId)
      .where('provider_id', '=', providerId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * The organization's keys opened, by provider id, for routing its requests. A key no master key
   * of the ring opens is left out (the operator's key serves that provider) and reported.
   */
  async secretsOf(
    organizationId: string,
    onUnreadable: (providerId: string, error: Error) => void = () => undefined,
  ): Promise<Map<string, string>> {
    const rows = await this.store.db
      .selectFrom('organization_provider_keys')
      .select(['id', 'provider_id', 'key_ciphertext'])
      .where('organization_id', '=', organizationId)
      .limit(MAX_PROVIDER_KEYS_PER_ORGANIZATION)
      .execute();
    const secrets = new Map<string, string>();
    for (const row of rows) {
      try {
        secrets.set(row.provider_id, this.keyring.open(row.key_ciphertext, providerKeySealContext(row.id)));
      } catch (error) {
        onUnreadable(row.provider_id, error as Error);
      }
    }
    return secrets;
  }

  private async row(organizationId: string, providerId: string): Promise<OrganizationProviderKeysTable | undefined> {
    return this.store.db
      .selectFrom('organization_provider_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('provider_id', '=', providerId)
      .executeTakeFirst();
  }
}
