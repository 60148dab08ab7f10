import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { Resolver } from 'node:dns/promises';
import type { LookupOptions } from 'node:dns';
import { UndiciAgent, requestThrough } from '../../server/undici-parts.js';
import { isPublicAddress } from '../../server/address-guard.js';
import { WELL_KNOWN_PATH, type CheckResult } from './challenge.js';

/** The file is a token and a line end; anything much larger is not a verification file. */
export const MAX_WELL_KNOWN_BYTES = 4096;

export interface WellKnownOptions {
  resolver: Resolver;
  port: number;
  timeoutMs: number;
  /** Allow private, loopback and reserved addresses (tests, labs). */
  allowPrivate: boolean;
  /** Extra trusted CA certificates (PEM) beside Node's roots. */
  extraCa: string | undefined;
}

/**
 * Proof by HTTPS: `GET https://<domain>/.well-known/gateway-verification.txt` answers 200 with
 * the claim's token on a line of its own. The certificate must be valid for the domain. SSRF
 * rules as for webhooks (the same address classification): every address the domain resolves
 * to must be public, and the connection is pinned to the checked address, so a second lookup
 * cannot rebind it. Redirects are not followed; time and bytes read are bounded. Reasons name
 * the domain, never an address.
 */
export async function checkWellKnownFile(
  domain: string,
  token: string,
  options: WellKnownOptions,
): Promise<CheckResult> {
  const started = Date.now();
  const addresses = await resolveAddresses(options.resolver, domain);
  if (!Array.isArray(addresses)) return addresses;
  if (!options.allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
    return { ok: false, reason: `${domain} resolves to a private or reserved address; it cannot be checked` };
  const pinned = addresses[0]!;
  // Resolving took part of the budget; the request gets what is left.
  const remainingMs = Math.max(1, options.timeoutMs - (Date.now() - started));
  const agent = new UndiciAgent({
    connect: {
      timeout: remainingMs,
      lookup: pinnedLookup(pinned) as never,
      ...(options.extraCa ? { ca: [...rootCertificates, options.extraCa] } : {}),
    },
    headersTimeout: remainingMs,
    bodyTimeout: remainingMs,
    connections: 1,
  });
  const host = isIP(domain) === 6 ? `[${domain}]` : domain;
  try {
    const response = await requestThrough(agent, `https://${host}:${options.port}${WELL_KNOWN_PATH}`, {
      method: 'GET',
      headers: { 'user-agent': 'llm-gateway-domain-verification/1.0', accept: 'text/plain' },
      signal: AbortSignal.timeout(remainingMs),
    });
    const where = `https://${host}${WELL_KNOWN_PATH}`;
    if (response.statusCode >= 300 && response.statusCode < 400) {
      await response.body.dump().catch(() => undefined);
      return { ok: false, reason: `${where} answered a redirect (${response.statusCode}); redirects are not followed` };
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      return { ok: false, reason: `${where} answered ${response.statusCode}` };
    }
    const body = await readAtMost(response.body, MAX_WELL_KNOWN_BYTES);
    if (body === undefined) return { ok: false, reason: `${where} is larger than ${MAX_WELL_KNOWN_BYTES} bytes` };
    if (body.split(/\r?\n/).some((line) => line.trim() === token)) return { ok: true };
    return { ok: false, reason: `${where} does not hold this claim's token` };
  } catch (error) {
    return { ok: false, reason: `fetching https://${host}${WELL_KNOWN_PATH} failed: ${requestFailure(domain, error)}` };
  } finally {
    void agent.destroy().catch(() => undefined);
  }
}

type Resolved = Array<{ address: string; family: 4 | 6 }>;

async function resolveAddresses(resolver: Resolver, domain: string): Promise<Resolved | CheckResult> {
  const family = isIP(domain);
  if (family === 4 || family === 6) return [{ address: domain, family }];
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(domain), resolver.resolve6(domain)]);
  const found: Resolved = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
  ];
  if (found.length > 0) return found;
  const code = v4.status === 'rejected' ? (v4.reason as NodeJS.ErrnoException).code : undefined;
  if (code === 'ETIMEOUT' || code === 'ECANCELLED') return { ok: false, reason: `resolving ${domain} timed out` };
  return { ok: false, reason: `${domain} does not resolve to an address` };
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/** Connects to the address that was checked, whatever the name resolves to by then. */
function pinnedLookup(pinned: { address: string; family: 4 | 6 }) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is not read). */
async function readAtMost(
  body: AsyncIterable<Buffer> & { destroy(): void },
  limit: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const TLS_CERT_CODES = new Set([
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
]);

/** Error codes only: Node's and undici's messages name the address they connected to. */
function requestFailure(domain: string, error: unknown): string {
  const e = error as { code?: string; name?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || /TIMEOUT/.test(code ?? '')) return 'timed out';
  if (code && TLS_CERT_CODES.has(code)) return `its TLS certificate is not valid for ${domain} (${code})`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'the connection was closed';
  if (code === 'EPROTO' || code?.startsWith('ERR_SSL')) return 'the TLS handshake failed';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'the host is unreachable';
  return `error ${code ?? 'without a code'}`;
}
