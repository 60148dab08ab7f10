import type { ApiKey, ApiKeyRepository } from '../../store/api-keys.js';
import { digestSecret, digestsEqual } from '../../secrets/secret-codec.js';
import { GatewayError } from '../errors.js';

interface CacheEntry {
  key: (ApiKey & { digest: string }) | null;
  fetchedAt: number;
}

const MAX_CACHED_KEYS = 100_000;

/**
 * Resolves a presented gateway key to its record on the hot path without a database read per
 * request. Entries live `ttlMs` (default 1 s): a key changed by another instance sharing the
 * database is seen within that time; a change made through this instance's console evicts the
 * entry at once (`forget`).
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly digestById = new Map<string, string>();
  private readonly lastUsed = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticate(secret: string | undefined): Promise<ApiKey> {
    if (!secret) throw new GatewayError('unauthorized', { message: 'Missing API key: send Authorization: Bearer <key>.' });
    const digest = digestSecret(secret);
    const key = await this.lookup(digest);
    if (!key || !digestsEqual(key.digest, digest)) throw new GatewayError('unauthorized', { message: 'Invalid API key.' });
    if (!key.active) throw new GatewayError('forbidden', { message: 'This API key is inactive.' });
    const now = this.now();
    if (key.expiresAt !== null && key.expiresAt <= now) throw new GatewayError('forbidden', { message: 'This API key has expired.' });
    this.lastUsed.set(key.id, now);
    return key;
  }

  /** Called by the console after it changes or deletes a key on this instance. */
  forget(keyId: string): void {
    const digest = this.digestById.get(keyId);
    if (digest) this.cache.delete(digest);
    this.digestById.delete(keyId);
  }

  /** Last-use times not yet written to the database. */
  pendingLastUsed(keyId: string): number | undefined {
    return this.lastUsed.get(keyId);
  }

  /** Writes pending last-use times in one batch (called on a timer and at shutdown). */
  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const entries = [...this.lastUsed].map(([id, at]) => ({ id, at }));
    this.lastUsed.clear();
    await this.keys.recordLastUsed(entries);
  }

  private async lookup(digest: string): Promise<(ApiKey & { digest: string }) | null> {
    const cached = this.cache.get(digest);
    const now = this.now();
    if (cached && now - cached.fetchedAt < this.ttlMs) return cached.key;
    const key = (await this.keys.findByDigest(digest)) ?? null;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
    this.cache.set(digest, { key, fetchedAt: now });
    if (key) this.digestById.set(key.id, digest);
    return key;
  }
}
