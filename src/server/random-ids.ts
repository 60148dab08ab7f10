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

const VARIANT_DIGITS = '89ab';

/**
 * A version 7 UUID (RFC 9562): 48 bits of Unix time in milliseconds, then 74 random bits. Rows
 * keyed by it are appended at the right edge of their primary-key index, so a batch of inserts
 * dirties one index page instead of one page per row (a random UUID lands anywhere).
 */
export function timeOrderedUuid(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  const start = take(10);
  // Bytes 0-8 give 18 random hex digits; byte 9 gives the two random bits of the variant digit.
  const random = pool.toString('hex', start, start + 9);
  const variant = VARIANT_DIGITS[pool[start + 9]! & 3];
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(0, 3)}-${variant}${random.slice(3, 6)}-${random.slice(6, 18)}`;
}
