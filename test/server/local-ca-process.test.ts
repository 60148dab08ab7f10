import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { makeCertificates } from '../../src/server/local-ca-process.js';

/**
 * Certificates are made in a child process, so the X.509 stack never loads into the gateway's
 * heap (docs/decisions.md, "Memory"). What tls.ts relies on: a new CA when none is given, the
 * given one reused otherwise, and a failure in the child reported instead of a start that hangs.
 */
describe('makeCertificates (child process)', () => {
  const job = { caCommonName: 'test CA', names: ['localhost', '127.0.0.1'], now: Date.now() };

  it('makes a CA when none is given and a leaf it signed for the names', async () => {
    const { ca, leaf } = await makeCertificates(job);
    const caCert = new X509Certificate(ca.cert);
    const leafCert = new X509Certificate(leaf.cert);
    assert.ok(caCert.ca);
    assert.ok(leafCert.checkIssued(caCert) && leafCert.verify(caCert.publicKey));
    assert.equal(leafCert.checkHost('localhost'), 'localhost');
    assert.equal(leafCert.checkIP('127.0.0.1'), '127.0.0.1');
    assert.match(leaf.key, /^-----BEGIN PRIVATE KEY-----/);
  });

  it('signs with the CA it is given and returns that CA unchanged', async () => {
    const first = await makeCertificates(job);
    const { ca, leaf } = await makeCertificates({ ...job, ca: first.ca });
    assert.deepEqual(ca, first.ca);
    assert.ok(new X509Certificate(leaf.cert).verify(new X509Certificate(first.ca.cert).publicKey));
    assert.notEqual(leaf.cert, first.leaf.cert);
  });

  it('rejects with the reason when the child cannot sign (an unreadable CA key)', async () => {
    const { ca } = await makeCertificates(job);
    await assert.rejects(
      makeCertificates({
        ...job,
        ca: { cert: ca.cert, key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' },
      }),
      /could not make the TLS certificates: /,
    );
  });
});
