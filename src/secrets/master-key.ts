import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The 32-byte key that encrypts gateway keys for reveal. From GATEWAY_SECRET_KEY (64 hex chars
 * or base64 of 32 bytes) when given, else generated once into the data dir with mode 0600.
 * Several instances sharing a database must share this key (set GATEWAY_SECRET_KEY on all).
 */
export function loadMasterKey(dataDir: string, fromEnv: string | undefined): Buffer {
  if (fromEnv) return parseKey(fromEnv, 'GATEWAY_SECRET_KEY');
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return parseKey(readFileSync(file, 'utf8').trim(), file);
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

function parseKey(text: string, source: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  const decoded = Buffer.from(text, 'base64');
  if (decoded.length === 32) return decoded;
  throw new Error(`${source} must hold a 32-byte key as 64 hex characters or base64`);
}
