import { hash } from 'node:crypto';
import type { ApiKey, ApiKeyRepository } from '../../store/api-keys.js';
import { digestSecret, digestsEqual } from '../../secrets/secret-codec.js';
import { GatewayError } from '../../pipeline/errors.js';

interface CacheEntry {
  key: (ApiKey & { digest: string }) | null;
  fetchedAt: number;
}

const MAX_CACHED_KEYS = 100_000;

/**
 * `digestSecret` through Node's one-shot `crypto.hash` (no Hash object per request, a few times
 * faster), for as long as the two agree: checked once here, so a change to how secrets are
 * digested cannot make keys stop matching.
 */
const PROBE = 'gw-digest-probe-\u00e9';
const digestKey: (secret: string) => string =
  hash('sha256', PROBE, 'hex') === digestSecret(PROBE) ? (secret) => hash('sha256', secret, 'hex') : digestSecret;

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

  /**
   * The key for `secret`, or throws the GatewayError to answer. Synchronous when the key is
   * cached (nearly every request), so the caller can skip a promise; a promise otherwise.
   */
  authenticate(secret: string | undefined): ApiKey | Promise<ApiKey> {
    if (!secret)
      throw new GatewayError('unauthorized', { message: 'Missing API key: send Authorization: Bearer <key>.' });
    const digest = digestKey(secret);
    const now = this.now();
    const cached = this.cache.get(digest);
    if (cached && now - cached.fetchedAt < this.ttlMs) return this.accept(cached.key, now);
    return this.fetch(digest, now).then((key) => this.accept(key, this.now()));
  }

  private accept(key: ApiKey | null, now: number): ApiKey {
    if (!key) throw new GatewayError('unauthorized', { message: 'Invalid API key.' });
    if (!key.active) throw new GatewayError('forbidden', { message: 'This API key is inactive.' });
    if (key.expiresAt !== null && key.expiresAt <= now)
      throw new GatewayError('forbidden', { message: 'This API key has expired.' });
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

  /**
   * The database's answer for `digest`, cached. The row is re-checked in constant time against
   * the digest here, once; the cache is keyed by that same digest, so a hit needs no re-check.
   */
  private async fetch(digest: string, now: number): Promise<ApiKey | null> {
    const found = await this.keys.findByDigest(digest);
    const key = found && digestsEqual(found.digest, digest) ? found : null;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
    this.cache.set(digest, { key, fetchedAt: now });
    if (key) this.digestById.set(key.id, digest);
    return key;
  }
}
