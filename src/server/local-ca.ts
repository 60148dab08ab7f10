import { isIP } from 'node:net';
import { randomBytes, webcrypto } from 'node:crypto';

/**
 * Certificate issuance for the gateway's own local CA: one long-lived CA (CA:TRUE, keyCertSign,
 * path length 0) and short-lived server certificates it signs. Only the certificate process runs
 * this (local-ca-child.ts, started by tls.ts when material has to be created), so the X.509
 * library and its crypto stack never load into the gateway itself.
 *
 * Both certificates carry subject and authority key identifiers: OpenSSL's strict verification
 * (Python 3.13's default context) refuses a chain without them.
 */
export interface CaMaterial {
  cert: string;
  key: string;
}

export interface IssuedCertificate {
  cert: string;
  key: string;
}

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
export const CA_VALIDITY_DAYS = 3650;
/** Within what Apple and browsers accept for a server certificate (398 days). */
export const LEAF_VALIDITY_DAYS = 397;

async function x509() {
  const lib = await import('@peculiar/x509');
  // Node's WebCrypto is the standard one; the library's types name the DOM's.
  lib.cryptoProvider.set(webcrypto as unknown as Parameters<typeof lib.cryptoProvider.set>[0]);
  return lib;
}

/** A positive serial of 16 random bytes (the top bit cleared so DER keeps it positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] as number) & 0x7f;
  return bytes.toString('hex');
}

async function exportKey(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function importKey(pem: string): Promise<webcrypto.CryptoKey> {
  const base64 = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '');
  return webcrypto.subtle.importKey('pkcs8', Buffer.from(base64, 'base64'), EC_KEY, true, ['sign']);
}

function validity(now: Date, days: number): { notBefore: Date; notAfter: Date } {
  // A minute in the past: a client whose clock is slightly behind still accepts a new certificate.
  return { notBefore: new Date(now.getTime() - 60_000), notAfter: new Date(now.getTime() + days * DAY_MS) };
}

/** Subject names are DNs written as strings; a host name with a comma or `=` must not break one. */
function dnValue(text: string): string {
  return text.replace(/[^A-Za-z0-9 ()._-]/g, '-').slice(0, 60);
}

export async function createCa(options: { commonName: string; now?: Date }): Promise<CaMaterial> {
  const lib = await x509();
  const keys = (await webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: `CN=${dnValue(options.commonName)}, O=LLM Gateway`,
    ...validity(options.now ?? new Date(), CA_VALIDITY_DAYS),
    signingAlgorithm: SIGNING,
    keys,
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await exportKey(keys.privateKey) };
}

/** A server certificate for `names` (DNS names and IP addresses), signed by the CA. */
export async function issueServerCertificate(
  ca: CaMaterial,
  names: readonly string[],
  now: Date = new Date(),
): Promise<IssuedCertificate> {
  const lib = await x509();
  const caCert = new lib.X509Certificate(ca.cert);
  const caKey = await importKey(ca.key);
  const keys = (await webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const commonName = names.find((name) => isIP(name) === 0) ?? 'localhost';
  const cert = await lib.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: `CN=${dnValue(commonName)}`,
    issuer: caCert.subject,
    ...validity(now, LEAF_VALIDITY_DAYS),
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
      new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth]),
      new lib.SubjectAlternativeNameExtension(
        names.map((name) => ({ type: isIP(name) === 0 ? ('dns' as const) : ('ip' as const), value: name })),
      ),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await lib.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await exportKey(keys.privateKey) };
}
