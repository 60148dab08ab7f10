import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:https';
import { connect, type PeerCertificate } from 'node:tls';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';
import { generate } from 'selfsigned';
import { loadTls, tlsPaths, type TlsMaterial } from '../../src/server/tls.js';

/**
 * The gateway is its own CA (issue 18): clients trust ca.pem, the server presents a leaf it
 * signed. Every check here is one a real client makes: Node's TLS stack verifying the chain
 * against ca.pem alone, the names in the leaf, and the extensions OpenSSL's strict mode
 * (Python 3.13's default) requires.
 */
const dirs: string[] = [];
const freshDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-tls-'));
  dirs.push(dir);
  return dir;
};
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const pemBlocks = (pem: string): string[] =>
  pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];

/** Serves `material` on 127.0.0.1 and performs one handshake trusting exactly `ca`. */
async function handshake(material: TlsMaterial, ca: string, servername: string): Promise<PeerCertificate> {
  const server = createServer({ cert: material.cert, key: material.key }, (_req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca, servername }, () => {
        const peer = socket.getPeerCertificate();
        socket.end();
        resolve(peer);
      });
      socket.once('error', reject);
    });
  } finally {
    server.close();
  }
}

function extensionsOf(pem: string) {
  const cert = new x509.X509Certificate(pem);
  return {
    basic: cert.getExtension(x509.BasicConstraintsExtension),
    usage: cert.getExtension(x509.KeyUsagesExtension),
    ski: cert.getExtension(x509.SubjectKeyIdentifierExtension),
    aki: cert.getExtension(x509.AuthorityKeyIdentifierExtension),
  };
}

describe('local CA on first start', () => {
  const dataDir = freshDir();
  let material: TlsMaterial;

  it('creates ca.pem (CA:TRUE, keyCertSign) and a server certificate it signs, keys 0600', async () => {
    material = await loadTls({ dataDir, extraNames: ['gw.internal.test', '10.20.30.40'], hostName: 'build-host' });
    const paths = tlsPaths(dataDir);
    assert.deepEqual(material.changes, ['created-ca', 'issued-certificate']);
    assert.equal(material.caFile, paths.caFile);
    const ca = new X509Certificate(readFileSync(paths.caFile));
    const leaf = new X509Certificate(pemBlocks(material.cert)[0]!);
    assert.equal(ca.ca, true);
    assert.equal(leaf.ca, false);
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), 'the leaf is signed by the CA');
    const caExt = extensionsOf(readFileSync(paths.caFile, 'utf8'));
    assert.equal(caExt.basic?.ca, true);
    assert.equal(caExt.basic?.critical, true);
    assert.ok(caExt.usage && (caExt.usage.usages & x509.KeyUsageFlags.keyCertSign) !== 0);
    assert.ok(caExt.ski, 'CA has a subject key identifier');
    const leafExt = extensionsOf(pemBlocks(material.cert)[0]!);
    assert.equal(leafExt.aki?.keyId, caExt.ski?.keyId, 'the leaf names its CA by key identifier');
    for (const file of [paths.caKeyFile, paths.keyFile]) assert.equal(statSync(file).mode & 0o777, 0o600, file);
    assert.equal(pemBlocks(readFileSync(paths.certFile, 'utf8')).length, 2, 'cert.pem is the chain leaf + CA');
  });

  it('names localhost, both loopbacks, the host name and the configured extras', () => {
    const leaf = new X509Certificate(pemBlocks(material.cert)[0]!);
    for (const name of [
      'DNS:localhost',
      'IP Address:127.0.0.1',
      'IP Address:0:0:0:0:0:0:0:1',
      'DNS:build-host',
      'DNS:gw.internal.test',
      'IP Address:10.20.30.40',
    ])
      assert.ok(leaf.subjectAltName?.split(', ').includes(name), `${name} in ${leaf.subjectAltName}`);
  });

  it('completes a handshake for each name trusting ca.pem alone (and the old cert.pem file)', async () => {
    const ca = readFileSync(material.caFile!, 'utf8');
    for (const name of ['localhost', 'gw.internal.test', 'build-host'])
      assert.equal((await handshake(material, ca, name)).subject.CN, 'localhost');
    // A client that pinned `<dataDir>/tls/cert.pem` before the CA existed re-reads a file holding the CA.
    await handshake(material, readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8'), 'localhost');
  });

  it('refuses a name the certificate does not cover', async () => {
    await assert.rejects(handshake(material, readFileSync(material.caFile!, 'utf8'), 'elsewhere.test'), /altnames/i);
  });

  it('reuses every file on the next start', async () => {
    const before = readFileSync(material.certFile, 'utf8');
    const again = await loadTls({ dataDir, extraNames: ['gw.internal.test', '10.20.30.40'], hostName: 'build-host' });
    assert.deepEqual(again.changes, []);
    assert.equal(again.cert, before);
  });

  it('re-issues the leaf under the same CA when the names change, so clients keep working', async () => {
    const caBefore = readFileSync(material.caFile!, 'utf8');
    const wider = await loadTls({
      dataDir,
      extraNames: ['gw.internal.test', 'new.internal.test'],
      hostName: 'build-host',
    });
    assert.deepEqual(wider.changes, ['reissued-for-names', 'issued-certificate']);
    assert.equal(readFileSync(material.caFile!, 'utf8'), caBefore);
    await handshake(wider, caBefore, 'new.internal.test');
  });

  it('renews a leaf that expires within 30 days, CA unchanged', async () => {
    const caBefore = readFileSync(material.caFile!, 'utf8');
    const later = new Date(Date.now() + 380 * 24 * 3600 * 1000);
    const renewed = await loadTls({
      dataDir,
      extraNames: ['gw.internal.test', 'new.internal.test'],
      hostName: 'build-host',
      now: later,
    });
    assert.deepEqual(renewed.changes, ['renewed-expiring', 'issued-certificate']);
    assert.equal(readFileSync(material.caFile!, 'utf8'), caBefore);
  });

  it('gives two processes starting at once the same CA', async () => {
    const shared = freshDir();
    const [a, b] = await Promise.all([loadTls({ dataDir: shared }), loadTls({ dataDir: shared })]);
    assert.equal(a.cert, b.cert);
    assert.equal(existsSync(tlsPaths(shared).lockFile), false);
  });
});

describe('a data dir from before the local CA', () => {
  it('keeps the old self-signed pair aside and serves a CA-signed certificate instead', async () => {
    const dataDir = freshDir();
    const dir = join(dataDir, 'tls');
    mkdirSync(dir, { recursive: true });
    // What the gateway generated until now: a self-signed leaf (CA:FALSE).
    const old = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] },
      ],
    });
    writeFileSync(join(dir, 'cert.pem'), old.cert);
    writeFileSync(join(dir, 'key.pem'), old.private);
    const migrated = await loadTls({ dataDir });
    assert.deepEqual(migrated.changes, ['created-ca', 'migrated-self-signed', 'issued-certificate']);
    assert.equal(readFileSync(join(dir, 'cert.self-signed.pem'), 'utf8'), old.cert);
    assert.equal(readFileSync(join(dir, 'key.self-signed.pem'), 'utf8'), old.private);
    await handshake(migrated, readFileSync(migrated.caFile!, 'utf8'), 'localhost');
    assert.deepEqual((await loadTls({ dataDir })).changes, [], 'migrated once');
  });
});

describe('operator certificates', () => {
  it('are served as given, no local CA is created, TLS_CA_FILE is what clients are told to trust', async () => {
    const dataDir = freshDir();
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
    const certFile = join(dataDir, 'operator.pem');
    const keyFile = join(dataDir, 'operator-key.pem');
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private);
    const material = await loadTls({ dataDir, certFile, keyFile, caFile: '/etc/ssl/operator-ca.pem' });
    assert.equal(material.cert, pems.cert);
    assert.equal(material.generated, false);
    assert.equal(material.caFile, '/etc/ssl/operator-ca.pem');
    assert.equal(existsSync(join(dataDir, 'tls')), false);
  });
});
