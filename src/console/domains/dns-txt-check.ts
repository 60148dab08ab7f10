import type { Resolver } from 'node:dns/promises';
import { dnsChallengeName, type CheckResult } from './challenge.js';

/** More TXT records than this at the challenge name are not looked at. */
const MAX_TXT_RECORDS = 50;

/**
 * Proof by DNS: a TXT record at `_gateway-challenge.<domain>` whose text is the claim's token.
 * Long records split into several strings are joined; any record may match, so the
 * organization can keep other tokens (another service's, a previous claim's) beside it.
 */
export async function checkDnsTxt(resolver: Resolver, domain: string, token: string): Promise<CheckResult> {
  const name = dnsChallengeName(domain);
  try {
    const records = await resolver.resolveTxt(name);
    const values = records.slice(0, MAX_TXT_RECORDS).map((chunks) => chunks.join('').trim());
    if (values.includes(token)) return { ok: true };
    return { ok: false, reason: `no TXT record at ${name} holds this claim's token` };
  } catch (error) {
    return { ok: false, reason: dnsFailure(name, error) };
  }
}

/** A resolver error as a sentence about `name` (codes only: no server address). */
export function dnsFailure(name: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENODATA' || code === 'ENOTFOUND') return `no TXT record at ${name}`;
  if (code === 'ETIMEOUT' || code === 'ECANCELLED') return `the DNS lookup of ${name} timed out`;
  return `the DNS lookup of ${name} failed (${code ?? 'error'})`;
}
