import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TlsMaterial {
  cert: string;
  key: string;
  certFile: string;
  generated: boolean;
}

/**
 * Production passes TLS_CERT_FILE/TLS_KEY_FILE. Without them a self-signed certificate for
 * localhost and 127.0.0.1 is created once in `<dataDir>/tls/` and reused on every start, so
 * clients can pin it (curl --cacert <dataDir>/tls/cert.pem).
 */
export async function loadTls(options: { dataDir: string; certFile?: string; keyFile?: string }): Promise<TlsMaterial> {
  if (options.certFile && options.keyFile) {
    return {
      cert: readFileSync(options.certFile, 'utf8'),
      key: readFileSync(options.keyFile, 'utf8'),
      certFile: options.certFile,
      generated: false,
    };
  }
  const dir = join(options.dataDir, 'tls');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, generated: false };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = new Date();
  // Imported only here: its crypto stack costs ~15 MB resident and most starts reuse the files.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 825 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  writeFileSync(certFile, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private, certFile, generated: true };
}
