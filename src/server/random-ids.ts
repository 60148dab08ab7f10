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
