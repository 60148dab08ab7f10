import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the master keys come from (docs/configuration.md, "Master key and rotation"). */
export interface MasterKeySource {
  dataDir: string;
  /** GATEWAY_SECRET_KEY: the current key. */
  secretKey: string | undefined;
  /** GATEWAY_SECRET_KEY_PREVIOUS: older keys still accepted for opening, comma-separated. */
  previousKeys?: string | undefined;
  /** GATEWAY_SECRET_KEY_FILE: a keyring file, one key a line, newest first; re-read on every reload. */
  keyringFile?: string | undefined;
}

export function masterKeySource(settings: {
  dataDir: string;
  secretKey: string | undefined;
  secretKeyPrevious: string | undefined;
  secretKeyFile: string | undefined;
}): MasterKeySource {
  return {
    dataDir: settings.dataDir,
    secretKey: settings.secretKey,
    previousKeys: settings.secretKeyPrevious,
    keyringFile: settings.secretKeyFile,
  };
}

/**
 * The master keys, newest first. From GATEWAY_SECRET_KEY_FILE when set; else GATEWAY_SECRET_KEY
 * (64 hex chars or base64 of 32 bytes); else `<dataDir>/secret.key`, generated once with mode
 * 0600 when absent. A file may hold several keys, one a line (`#` comments allowed), the first
 * being the one new values are sealed with; GATEWAY_SECRET_KEY_PREVIOUS adds older keys in every
 * mode. Files are re-read on each call, which is what a reload does; the environment is fixed
 * for the process's life. Instances sharing a database must share the keys.
 */
export function loadMasterKeys(source: MasterKeySource): Buffer[] {
  const keys = primaryKeys(source);
  for (const [index, text] of splitList(source.previousKeys ?? '').entries())
    keys.push(parseKey(text, `GATEWAY_SECRET_KEY_PREVIOUS (entry ${index + 1})`));
  return keys;
}

function primaryKeys(source: MasterKeySource): Buffer[] {
  if (source.keyringFile) {
    if (!existsSync(source.keyringFile))
      throw new Error(`GATEWAY_SECRET_KEY_FILE ${source.keyringFile} does not exist`);
    return keysOfFile(source.keyringFile);
  }
  if (source.secretKey) return [parseKey(source.secretKey, 'GATEWAY_SECRET_KEY')];
  const file = join(source.dataDir, 'secret.key');
  if (existsSync(file)) return keysOfFile(file);
  mkdirSync(source.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return [key];
}

/** The current key only (the start-up checks of `backup`, `connect`). */
export function loadMasterKey(dataDir: string, fromEnv: string | undefined): Buffer {
  return loadMasterKeys({ dataDir, secretKey: fromEnv })[0]!;
}

function keysOfFile(file: string): Buffer[] {
  const keys: Buffer[] = [];
  for (const [index, raw] of readFileSync(file, 'utf8').split('\n').entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (line !== '') keys.push(parseKey(line, `${file} line ${index + 1}`));
  }
  if (keys.length === 0) throw new Error(`${file} holds no master key`);
  return keys;
}

function splitList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function parseKey(text: string, source: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  const decoded = Buffer.from(text, 'base64');
  if (decoded.length === 32) return decoded;
  throw new Error(`${source} must hold a 32-byte key as 64 hex characters or base64`);
}
