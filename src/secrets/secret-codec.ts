import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Gateway keys and console tokens: a type prefix scanners recognise, then 32 random bytes
 * in base64url. Stored as a SHA-256 digest (lookup); gateway keys also as AES-256-GCM
 * ciphertext (reveal). A SHA-256 digest is enough for lookup because the secrets carry
 * 256 bits of entropy: there is nothing to brute-force, so a slow KDF would only add latency.
 */
export const GATEWAY_KEY_PREFIX = 'gw-';
export const CONSOLE_TOKEN_PREFIX = 'gwc_';

export function generateSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function digestSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * AES-256-GCM; `context` is bound as AAD. With a `keyId` (the keyring's id of `masterKey`, see
 * keyring.ts) the output is `v2.<keyId>.<iv>.<tag>.<ciphertext>`, so a rotation can tell which
 * values still need re-sealing; without one, the original `v1.<iv>.<tag>.<ciphertext>`.
 */
export function encryptSecret(masterKey: Buffer, plaintext: string, context: string, keyId?: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const fields = [
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ];
  return (keyId === undefined ? ['v1', ...fields] : ['v2', keyId, ...fields]).join('.');
}

export interface SealedParts {
  /** The id of the key that sealed it; undefined for a v1 value (sealed before key ids existed). */
  keyId: string | undefined;
  iv: string;
  tag: string;
  ciphertext: string;
}

export function parseSealed(sealed: string): SealedParts {
  const parts = sealed.split('.');
  if (parts[0] === 'v1' && parts.length === 4)
    return { keyId: undefined, iv: parts[1]!, tag: parts[2]!, ciphertext: parts[3]! };
  if (parts[0] === 'v2' && parts.length === 5 && parts[1])
    return { keyId: parts[1], iv: parts[2]!, tag: parts[3]!, ciphertext: parts[4]! };
  throw new Error('unrecognised sealed secret');
}

/** Opens a v1 or v2 value with `masterKey` (the key id, if any, is the keyring's business). */
export function decryptSecret(masterKey: Buffer, sealed: string, context: string): string {
  const { iv, tag, ciphertext } = parseSealed(sealed);
  if (!iv || !tag) throw new Error('unrecognised sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
