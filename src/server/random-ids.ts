import { randomFillSync } from 'node:crypto';

/**
 * `crypto.randomBytes(n)` asks OpenSSL for entropy on every call, which costs more than the rest
 * of building a response id; like `crypto.randomUUID`, these ids draw from a pool of random
 * bytes refilled 4 KiB at a time. Each byte is used once.
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

function take(bytes: number): number {
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += bytes;
  return start;
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  const start = take(bytes);
  return pool.toString('hex', start, start + bytes);
}

/** `bytes` random bytes as base64url, without padding. */
export function randomBase64Url(bytes: number): string {
  const start = take(bytes);
  return pool.toString('base64url', start, start + bytes);
}

const uuidBytes = Buffer.alloc(16);

/**
 * A version 7 UUID (RFC 9562): 48 bits of Unix time in milliseconds, then 74 random bits. Rows
 * keyed by it are appended at the right edge of their primary-key index, so a batch of inserts
 * dirties one index page instead of one page per row (a random UUID lands anywhere).
 */
export function timeOrderedUuid(now = Date.now()): string {
  uuidBytes.writeUIntBE(now, 0, 6);
  const start = take(10);
  pool.copy(uuidBytes, 6, start, start + 10);
  uuidBytes[6] = 0x70 | (uuidBytes[6]! & 0x0f);
  uuidBytes[8] = 0x80 | (uuidBytes[8]! & 0x3f);
  const hex = uuidBytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
