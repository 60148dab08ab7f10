import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import type { Logger } from 'pino';
import { loadTls, tlsPaths, type TlsMaterial, type TlsOptions } from './tls.js';

/** How a reload ended: the pair in use is the same, a new one is served, or the new one was refused. */
export type TlsReloadOutcome =
  | { result: 'unchanged' }
  | { result: 'swapped'; fingerprint: string; validTo: string }
  | { result: 'rejected'; error: string };

export interface TlsReloaderOptions {
  tls: TlsOptions;
  logger: Logger;
  /** How often the watched files are stat'ed (fs.watchFile polls: it follows symlinks, so a Kubernetes secret's swap is seen). */
  watchIntervalMs: number;
  /** Generated material: how often the leaf is checked for renewal (loadTls re-issues one nearing expiry). */
  renewCheckMs?: number;
}

const DEFAULT_RENEW_CHECK_MS = 6 * 3600 * 1000;
/** A renewal writes the certificate and the key one after the other: read them once both settled. */
const SETTLE_MS = 250;

/**
 * Keeps every listener's certificate current without a restart. The configured pair
 * (TLS_CERT_FILE/TLS_KEY_FILE), or the local CA's leaf, is watched; a changed pair is validated
 * (it parses, the key matches the certificate, it has not expired) and swapped in with
 * `setSecureContext` on every listener: connections already open keep the session they
 * negotiated, new handshakes get the new certificate. A bad pair keeps the old one and logs an error.
 */
export class TlsReloader {
  private readonly servers: TlsServer[] = [];
  private readonly watched: string[];
  private renewTimer: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private running: Promise<TlsReloadOutcome> | undefined;

  constructor(
    private material: TlsMaterial,
    private readonly options: TlsReloaderOptions,
  ) {
    const keyFile = options.tls.keyFile ?? tlsPaths(options.tls.dataDir).keyFile;
    this.watched = [material.certFile, keyFile];
  }

  /** The certificate chain served now. */
  get cert(): string {
    return this.material.cert;
  }

  /** Starts watching; `servers` are the listeners' TLS servers, all of which get every swap. */
  start(servers: readonly TlsServer[]): void {
    this.servers.push(...servers);
    const changed = (current: Stats, previous: Stats) => {
      if (current.mtimeMs === previous.mtimeMs && current.size === previous.size && current.ino === previous.ino)
        return;
      clearTimeout(this.settleTimer);
      this.settleTimer = setTimeout(() => void this.reload(), SETTLE_MS);
      this.settleTimer.unref();
    };
    for (const file of this.watched)
      watchFile(file, { interval: this.options.watchIntervalMs, persistent: false }, changed);
    if (this.material.generated) {
      this.renewTimer = setInterval(() => void this.reload(), this.options.renewCheckMs ?? DEFAULT_RENEW_CHECK_MS);
      this.renewTimer.unref();
    }
  }

  stop(): void {
    for (const file of this.watched) unwatchFile(file);
    clearInterval(this.renewTimer);
    clearTimeout(this.settleTimer);
  }

  /** Reads the pair again (re-issuing an expiring generated leaf) and swaps it in when it changed and is valid. */
  reload(): Promise<TlsReloadOutcome> {
    // One at a time: a watch event during a SIGHUP's reload waits for it instead of racing it.
    const previous = this.running ?? Promise.resolve({ result: 'unchanged' as const });
    const next = previous.then(() => this.reloadOnce());
    this.running = next;
    return next;
  }

  private async reloadOnce(): Promise<TlsReloadOutcome> {
    let candidate: TlsMaterial;
    try {
      candidate = await loadTls(this.options.tls);
      if (candidate.cert === this.material.cert && candidate.key === this.material.key) return { result: 'unchanged' };
      const leaf = validatedLeaf(candidate);
      for (const server of this.servers) server.setSecureContext({ cert: candidate.cert, key: candidate.key });
      this.material = candidate;
      this.options.logger.info(
        { certificate: candidate.certFile, fingerprint: leaf.fingerprint256, validTo: leaf.validTo },
        'TLS certificate reloaded: new handshakes get it, open connections keep theirs',
      );
      return { result: 'swapped', fingerprint: leaf.fingerprint256, validTo: leaf.validTo };
    } catch (error) {
      const message = (error as Error).message;
      this.options.logger.error(
        { certificate: this.material.certFile, error: message },
        'the new TLS certificate or key was refused; the listeners keep serving the previous one',
      );
      return { result: 'rejected', error: message };
    }
  }
}

/** Throws what is wrong with a pair: unparsable, key not matching, expired or not yet valid. */
function validatedLeaf(material: TlsMaterial): X509Certificate {
  const end = material.cert.indexOf('-----END CERTIFICATE-----');
  if (end < 0) throw new Error('the certificate file holds no PEM certificate');
  const leaf = new X509Certificate(material.cert.slice(0, end + '-----END CERTIFICATE-----'.length));
  const now = Date.now();
  if (new Date(leaf.validTo).getTime() <= now) throw new Error(`the certificate expired on ${leaf.validTo}`);
  if (new Date(leaf.validFrom).getTime() > now) throw new Error(`the certificate is valid only from ${leaf.validFrom}`);
  // OpenSSL checks that the key matches the certificate ("key values mismatch") and that both parse.
  createSecureContext({ cert: material.cert, key: material.key });
  return leaf;
}
