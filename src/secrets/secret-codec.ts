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

/** AES-256-GCM; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. `context` is bound as AAD. */
export function encryptSecret(masterKey: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

export function decryptSecret(masterKey: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('unrecognised sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
