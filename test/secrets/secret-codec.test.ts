import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  CONSOLE_TOKEN_PREFIX,
  GATEWAY_KEY_PREFIX,
  decryptSecret,
  digestSecret,
  digestsEqual,
  encryptSecret,
  generateSecret,
} from '../../src/secrets/secret-codec.js';
import { loadMasterKey } from '../../src/secrets/master-key.js';

const masterKey = randomBytes(32);

/** Flips one bit of the base64url field `index` (1 = iv, 2 = tag, 3 = ciphertext) of a sealed secret. */
function tamper(sealed: string, index: number, byte = 0): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  const at = byte % bytes.length;
  bytes[at] = bytes[at]! ^ 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret generation and digests', () => {
  it('generates a prefixed secret with 32 random bytes in base64url', () => {
    const seen = new Set<string>();
    for (const prefix of [GATEWAY_KEY_PREFIX, CONSOLE_TOKEN_PREFIX]) {
      for (let i = 0; i < 50; i++) {
        const secret = generateSecret(prefix);
        assert.ok(secret.startsWith(prefix));
        const body = secret.slice(prefix.length);
        assert.match(body, /^[A-Za-z0-9_-]{43}$/);
        assert.equal(Buffer.from(body, 'base64url').length, 32);
        seen.add(secret);
      }
    }
    assert.equal(seen.size, 100);
    assert.notEqual(GATEWAY_KEY_PREFIX, CONSOLE_TOKEN_PREFIX);
  });

  it('digests with SHA-256 as lowercase hex', () => {
    assert.equal(digestSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.match(digestSecret(generateSecret(GATEWAY_KEY_PREFIX)), /^[0-9a-f]{64}$/);
  });

  it('compares digests: equal only for the same secret, false for other lengths', () => {
    const a = digestSecret('gw-one');
    assert.equal(digestsEqual(a, digestSecret('gw-one')), true);
    assert.equal(digestsEqual(a, digestSecret('gw-two')), false);
    assert.equal(digestsEqual(a, a.slice(0, 62)), false);
    assert.equal(digestsEqual(a, ''), false);
    assert.equal(digestsEqual(a, a.toUpperCase()), true, 'hex is case-insensitive');
    fc.assert(
      fc.property(fc.string(), fc.string(), (x, y) => digestsEqual(digestSecret(x), digestSecret(y)) === (x === y)),
      { numRuns: 200 },
    );
  });
});

describe('AES-256-GCM sealing of gateway keys', () => {
  it('round-trips any string, and never shows the plaintext in the sealed form', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.string({ maxLength: 50 }),
        (plaintext, context) => {
          const sealed = encryptSecret(masterKey, plaintext, context);
          assert.match(sealed, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/);
          assert.equal(decryptSecret(masterKey, sealed, context), plaintext);
        },
      ),
      { numRuns: 200 },
    );
    const secret = generateSecret(GATEWAY_KEY_PREFIX);
    const sealed = encryptSecret(masterKey, secret, 'api_key:1');
    assert.ok(!sealed.includes(secret.slice(GATEWAY_KEY_PREFIX.length)));
    assert.ok(!sealed.includes(secret.slice(GATEWAY_KEY_PREFIX.length + 4, GATEWAY_KEY_PREFIX.length + 20)));
  });

  it('uses a fresh 12-byte IV every time, so sealing the same secret twice differs', () => {
    const first = encryptSecret(masterKey, 'gw-same', 'api_key:1');
    const second = encryptSecret(masterKey, 'gw-same', 'api_key:1');
    assert.notEqual(first, second);
    assert.equal(Buffer.from(first.split('.')[1]!, 'base64url').length, 12);
    assert.equal(Buffer.from(first.split('.')[2]!, 'base64url').length, 16);
  });

  it('detects tampering with the IV, the tag or the ciphertext', () => {
    const sealed = encryptSecret(masterKey, generateSecret(GATEWAY_KEY_PREFIX), 'api_key:1');
    for (const field of [1, 2, 3]) {
      for (const byte of [0, 5, 11]) {
        assert.throws(
          () => decryptSecret(masterKey, tamper(sealed, field, byte), 'api_key:1'),
          Error,
          `field ${field} byte ${byte}`,
        );
      }
    }
    const truncatedTag = sealed.split('.');
    truncatedTag[2] = truncatedTag[2]!.slice(0, 8);
    assert.throws(() => decryptSecret(masterKey, truncatedTag.join('.'), 'api_key:1'));
  });

  it('binds the sealed secret to its key id (AAD): another id cannot open it', () => {
    const sealed = encryptSecret(masterKey, 'gw-secret', 'api_key:aaaa');
    assert.equal(decryptSecret(masterKey, sealed, 'api_key:aaaa'), 'gw-secret');
    assert.throws(() => decryptSecret(masterKey, sealed, 'api_key:bbbb'));
    assert.throws(() => decryptSecret(masterKey, sealed, ''));
  });

  it('cannot be opened with another master key', () => {
    const sealed = encryptSecret(masterKey, 'gw-secret', 'api_key:1');
    assert.throws(() => decryptSecret(randomBytes(32), sealed, 'api_key:1'));
  });

  it('refuses sealed strings of an unknown version or shape', () => {
    const sealed = encryptSecret(masterKey, 'gw-secret', 'c');
    for (const bad of ['', 'v1', 'v1.a.b', sealed.replace(/^v1/, 'v2'), 'plain-text-secret']) {
      assert.throws(() => decryptSecret(masterKey, bad, 'c'), Error, bad);
    }
  });
});

describe('master key', () => {
  it('is generated once into the data dir with mode 0600 and reused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-master-'));
    try {
      const first = loadMasterKey(dir, undefined);
      assert.equal(first.length, 32);
      const file = join(dir, 'secret.key');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(readFileSync(file, 'utf8').trim(), first.toString('hex'));
      assert.deepEqual(loadMasterKey(dir, undefined), first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes GATEWAY_SECRET_KEY as 64 hex characters or base64 of 32 bytes, and writes no file then', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-master-'));
    try {
      const raw = randomBytes(32);
      assert.deepEqual(loadMasterKey(dir, raw.toString('hex')), raw);
      assert.deepEqual(loadMasterKey(dir, raw.toString('base64')), raw);
      assert.throws(() => statSync(join(dir, 'secret.key')), /ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a GATEWAY_SECRET_KEY that is not 32 bytes, naming the variable', () => {
    for (const bad of ['short', 'ab'.repeat(31), randomBytes(16).toString('base64'), randomBytes(33).toString('hex')]) {
      assert.throws(() => loadMasterKey('/nonexistent', bad), /GATEWAY_SECRET_KEY/);
    }
  });
});
