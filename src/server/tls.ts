import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import { BlockList, isIP } from 'node:net';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import type { Settings } from '../config/settings.js';
import type { CaMaterial } from './local-ca.js';
import { makeCertificates } from './local-ca-process.js';

export interface TlsMaterial {
  /** The server's certificate chain (leaf, then the CA when generated). */
  cert: string;
  key: string;
  certFile: string;
  /** The CA clients must trust: the local CA when generated, TLS_CA_FILE when the operator gave one. */
  caFile: string | undefined;
  /** System roots plus the local CA, for clients whose CA variable replaces the system store. */
  caBundleFile: string | undefined;
  generated: boolean;
  /** What this start did to the files, for the start-up log. */
  changes: TlsChange[];
}

export type TlsChange =
  'created-ca' | 'issued-certificate' | 'migrated-self-signed' | 'renewed-expiring' | 'reissued-for-names';

export interface TlsOptions {
  dataDir: string;
  certFile?: string | undefined;
  keyFile?: string | undefined;
  /** The CA that signed an operator's certificate, only to tell clients what to trust. */
  caFile?: string | undefined;
  /** Names the generated certificate must cover besides localhost, 127.0.0.1, ::1 and the host name. */
  extraNames?: readonly string[];
  /** The listeners' bind address: a specific one is added to the certificate's names. */
  bindHost?: string | undefined;
  hostName?: string;
  now?: Date;
}

/** The TLS options of the process's settings: what `serve`, `trust` and `connect` load alike. */
export function tlsOptionsOf(settings: Settings): TlsOptions {
  return {
    dataDir: settings.dataDir,
    certFile: settings.tlsCertFile,
    keyFile: settings.tlsKeyFile,
    caFile: settings.tls.caFile,
    extraNames: settings.tls.extraNames,
    bindHost: settings.host,
  };
}

/** Where the generated material lives, for `gateway trust` and `gateway connect`. */
export function tlsPaths(dataDir: string) {
  const dir = join(dataDir, 'tls');
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    caKeyFile: join(dir, 'ca-key.pem'),
    caBundleFile: join(dir, 'ca-bundle.pem'),
    certFile: join(dir, 'cert.pem'),
    keyFile: join(dir, 'key.pem'),
    lockFile: join(dir, '.lock'),
    legacyCertFile: join(dir, 'cert.self-signed.pem'),
    legacyKeyFile: join(dir, 'key.self-signed.pem'),
  };
}

const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;
const DNS_NAME = /^(?=.{1,253}$)(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '']);

/** localhost, both loopbacks, the host name, a specific bind address, then the configured extras. */
export function serverNames(options: Pick<TlsOptions, 'extraNames' | 'bindHost' | 'hostName'>): string[] {
  const names = ['localhost', '127.0.0.1', '::1'];
  const add = (raw: string | undefined): void => {
    const name = raw
      ?.trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    if (!name || names.includes(name)) return;
    if (isIP(name) !== 0 || DNS_NAME.test(name)) names.push(name);
  };
  add(options.hostName ?? hostname());
  if (options.bindHost && !WILDCARD_BINDS.has(options.bindHost)) add(options.bindHost);
  for (const name of options.extraNames ?? []) add(name);
  return names;
}

/**
 * Whether a certificate covers every name. Node prints its names as `DNS:a, IP Address:b`, IPv6
 * written out in full (`0:0:0:0:0:0:0:1`), so addresses are compared through a BlockList, which
 * normalises both spellings.
 */
function coversAll(cert: X509Certificate, names: readonly string[]): boolean {
  const dns = new Set<string>();
  const addresses = new BlockList();
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    const match = /^(DNS|IP Address):(.*)$/.exec(entry);
    if (!match) continue;
    const value = match[2]!.toLowerCase();
    if (match[1] === 'DNS') dns.add(value);
    else if (isIP(value)) addresses.addAddress(value, isIP(value) === 6 ? 'ipv6' : 'ipv4');
  }
  return names.every((name) =>
    isIP(name) ? addresses.check(name, isIP(name) === 6 ? 'ipv6' : 'ipv4') : dns.has(name),
  );
}

function firstCertificate(pem: string): X509Certificate {
  const end = pem.indexOf('-----END CERTIFICATE-----');
  return new X509Certificate(end < 0 ? pem : pem.slice(0, end + '-----END CERTIFICATE-----'.length));
}

function writeAtomically(path: string, content: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  chmodSync(temporary, mode);
  renameSync(temporary, path);
}

/**
 * One process at a time creates material in a data dir; the others wait for it and read the
 * files. A lock older than the wait is taken to be from a process that died while holding it.
 */
async function withLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      closeSync(openSync(lockFile, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline) {
        rmSync(lockFile, { force: true });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

/**
 * Production passes TLS_CERT_FILE/TLS_KEY_FILE (and TLS_CA_FILE when clients need to be told
 * which CA signed them). Without them the gateway is its own CA: on first start it creates a
 * local CA (`<dataDir>/tls/ca.pem`, CA:TRUE, keyCertSign) and a server certificate it signs
 * (`cert.pem`, the chain leaf + CA), reused on every start. Clients trust the CA, never the leaf,
 * so the leaf can be re-issued without touching any client: when it nears expiry or when the
 * names it must cover change (TLS_EXTRA_NAMES, host name).
 *
 * A data dir from before the CA existed holds a self-signed leaf, which Claude Code and opencode
 * refuse as a trust anchor. It is kept as `cert.self-signed.pem`/`key.self-signed.pem` and
 * replaced by a CA-signed one; clients that pinned the old `cert.pem` file keep working, since the
 * new file carries the CA too.
 */
export async function loadTls(options: TlsOptions): Promise<TlsMaterial> {
  if (options.certFile && options.keyFile) {
    return {
      cert: readFileSync(options.certFile, 'utf8'),
      key: readFileSync(options.keyFile, 'utf8'),
      certFile: options.certFile,
      caFile: options.caFile,
      caBundleFile: undefined,
      generated: false,
      changes: [],
    };
  }
  const paths = tlsPaths(options.dataDir);
  const now = options.now ?? new Date();
  const names = serverNames(options);
  const current = readGenerated(paths, names, now);
  if (current) return current;
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  return withLock(paths.lockFile, async () => {
    // Another process may have done the work while this one waited for the lock.
    const ready = readGenerated(paths, names, now);
    if (ready) return ready;
    const changes: TlsChange[] = [];
    const existing = readCa(paths);
    // The leaf is (re-)issued on every path that gets here; the CA only when there is none.
    const { ca, leaf } = await makeCertificates({
      ca: existing,
      caCommonName: `LLM Gateway local CA (${options.hostName ?? hostname()})`,
      names,
      now: now.getTime(),
    });
    if (!existing) {
      writeAtomically(paths.caKeyFile, ca.key, 0o600);
      writeAtomically(paths.caFile, ca.cert, 0o644);
      changes.push('created-ca');
    }
    writeAtomically(paths.caBundleFile, caBundle(ca.cert), 0o644);
    const problem = leafProblem(paths, ca, names, now);
    changes.push(...problem.filter((change) => change !== 'issued-certificate'));
    if (changes.includes('migrated-self-signed')) {
      renameSync(paths.certFile, paths.legacyCertFile);
      if (existsSync(paths.keyFile)) renameSync(paths.keyFile, paths.legacyKeyFile);
    }
    writeAtomically(paths.keyFile, leaf.key, 0o600);
    writeAtomically(paths.certFile, leaf.cert + ca.cert, 0o644);
    changes.push('issued-certificate');
    return material(paths, leaf.cert + ca.cert, leaf.key, changes);
  });
}

function readCa(paths: ReturnType<typeof tlsPaths>): CaMaterial | undefined {
  if (!existsSync(paths.caFile) || !existsSync(paths.caKeyFile)) return undefined;
  return { cert: readFileSync(paths.caFile, 'utf8'), key: readFileSync(paths.caKeyFile, 'utf8') };
}

/** The files as they are, when nothing needs creating or re-issuing. */
function readGenerated(paths: ReturnType<typeof tlsPaths>, names: string[], now: Date): TlsMaterial | undefined {
  const ca = readCa(paths);
  if (!ca || !existsSync(paths.caBundleFile)) return undefined;
  if (leafProblem(paths, ca, names, now).length > 0) return undefined;
  return material(paths, readFileSync(paths.certFile, 'utf8'), readFileSync(paths.keyFile, 'utf8'), []);
}

/** Why the server certificate must be (re-)issued; empty when the one on disk is good. */
function leafProblem(paths: ReturnType<typeof tlsPaths>, ca: CaMaterial, names: string[], now: Date): TlsChange[] {
  if (!existsSync(paths.certFile) || !existsSync(paths.keyFile)) return ['issued-certificate'];
  const leaf = firstCertificate(readFileSync(paths.certFile, 'utf8'));
  const caCert = new X509Certificate(ca.cert);
  if (leaf.checkIssued(leaf) && !leaf.ca) return ['migrated-self-signed'];
  if (!leaf.checkIssued(caCert) || !leaf.verify(caCert.publicKey)) return ['issued-certificate'];
  if (new Date(leaf.validTo).getTime() - now.getTime() < RENEW_BEFORE_MS) return ['renewed-expiring'];
  if (!coversAll(leaf, names)) return ['reissued-for-names'];
  return [];
}

function caBundle(caCert: string): string {
  return `${rootCertificates.join('\n')}\n${caCert}`;
}

function material(paths: ReturnType<typeof tlsPaths>, cert: string, key: string, changes: TlsChange[]): TlsMaterial {
  return {
    cert,
    key,
    certFile: paths.certFile,
    caFile: paths.caFile,
    caBundleFile: paths.caBundleFile,
    generated: true,
    changes,
  };
}

/** SHA-256 fingerprint of the first certificate in a PEM file, for people comparing by eye. */
export function fingerprintOf(pemFile: string): string {
  return firstCertificate(readFileSync(pemFile, 'utf8')).fingerprint256;
}

export function isReadableFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
