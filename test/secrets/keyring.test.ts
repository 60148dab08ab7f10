import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Keyring, masterKeyId } from '../../src/secrets/keyring.js';
import { decryptSecret, encryptSecret } from '../../src/secrets/secret-codec.js';
import { loadMasterKeys } from '../../src/secrets/master-key.js';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);

describe('keyring', () => {
  it('seals with the newest key and names it in the sealed value', () => {
    const ring = new Keyring([newKey, oldKey]);
    const sealed = ring.seal('gw-secret', 'api_key:1');
    assert.equal(sealed.split('.')[0], 'v2');
    assert.equal(sealed.split('.')[1], masterKeyId(newKey));
    assert.equal(ring.sealerOf(sealed, 'api_key:1'), masterKeyId(newKey));
    assert.equal(ring.open(sealed, 'api_key:1'), 'gw-secret');
    assert.throws(() => ring.open(sealed, 'api_key:2'));
  });

  it('seals with one key in the format before key ids, which the code before keyrings opens', () => {
    const sealed = new Keyring([newKey]).seal('gw-secret', 'api_key:1');
    assert.equal(sealed.split('.')[0], 'v1');
    assert.equal(decryptSecret(newKey, sealed, 'api_key:1'), 'gw-secret');
    assert.equal(new Keyring([oldKey, newKey]).sealerOf(sealed, 'api_key:1'), masterKeyId(newKey));
    assert.equal(new Keyring([oldKey]).sealerOf(sealed, 'api_key:1'), undefined);
  });

  it('opens values sealed by an older key of the ring and by the format before key ids', () => {
    const before = new Keyring([oldKey, randomBytes(32)]).seal('gw-a', 'api_key:a');
    const legacy = encryptSecret(oldKey, 'gw-b', 'api_key:b');
    assert.equal(legacy.split('.')[0], 'v1');
    const ring = new Keyring([newKey, oldKey]);
    assert.equal(ring.open(before, 'api_key:a'), 'gw-a');
    assert.equal(ring.open(legacy, 'api_key:b'), 'gw-b');
    assert.equal(ring.sealerOf(before, 'api_key:a'), masterKeyId(oldKey));
    assert.equal(ring.sealerOf(legacy, 'api_key:b'), masterKeyId(oldKey));
  });

  it('names the missing key when a value was sealed by a key dropped from the ring', () => {
    const before = new Keyring([oldKey, newKey]).seal('gw-a', 'api_key:a');
    const ring = new Keyring([newKey]);
    assert.throws(() => ring.open(before, 'api_key:a'), new RegExp(`master key ${masterKeyId(oldKey)}`));
    assert.throws(() => ring.open(encryptSecret(oldKey, 'x', 'c'), 'c'), /no master key in the keyring opens/);
  });

  it('swaps the whole ring on replace, and rejects an empty ring or a short key', () => {
    const ring = new Keyring([oldKey]);
    ring.replace([newKey, oldKey, newKey]);
    assert.deepEqual(ring.ids(), [masterKeyId(newKey), masterKeyId(oldKey)]);
    assert.throws(() => ring.replace([]), /at least one/);
    assert.throws(() => ring.replace([randomBytes(16)]), /32 bytes/);
    assert.deepEqual(ring.ids(), [masterKeyId(newKey), masterKeyId(oldKey)]);
  });
});

describe('master keys from files and the environment', () => {
  it('reads a keyring file newest first, comments allowed, and appends GATEWAY_SECRET_KEY_PREVIOUS', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keyring-'));
    try {
      const file = join(dir, 'keyring');
      const third = randomBytes(32);
      writeFileSync(file, `# rotated 2026-12\n${newKey.toString('hex')}\n\n${oldKey.toString('base64')}  # old\n`);
      const keys = loadMasterKeys({
        dataDir: dir,
        secretKey: undefined,
        keyringFile: file,
        previousKeys: third.toString('hex'),
      });
      assert.deepEqual(keys, [newKey, oldKey, third]);
      writeFileSync(file, 'not a key\n');
      assert.throws(() => loadMasterKeys({ dataDir: dir, secretKey: undefined, keyringFile: file }), /line 1/);
      assert.throws(
        () => loadMasterKeys({ dataDir: dir, secretKey: undefined, keyringFile: join(dir, 'absent') }),
        /does not exist/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads several keys from the data dir secret.key, and GATEWAY_SECRET_KEY with its previous keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keyring-'));
    try {
      const generated = loadMasterKeys({ dataDir: dir, secretKey: undefined });
      assert.equal(generated.length, 1);
      writeFileSync(join(dir, 'secret.key'), `${newKey.toString('hex')}\n${generated[0]!.toString('hex')}\n`);
      assert.deepEqual(loadMasterKeys({ dataDir: dir, secretKey: undefined }), [newKey, generated[0]]);
      assert.deepEqual(
        loadMasterKeys({ dataDir: dir, secretKey: newKey.toString('hex'), previousKeys: `${oldKey.toString('hex')},` }),
        [newKey, oldKey],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
