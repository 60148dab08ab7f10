/** Where an organization publishes a claim's token to prove control of a domain. */
export const DNS_CHALLENGE_LABEL = '_gateway-challenge';
export const WELL_KNOWN_PATH = '/.well-known/gateway-verification.txt';

export function dnsChallengeName(domain: string): string {
  return `${DNS_CHALLENGE_LABEL}.${domain}`;
}

/** The URL the service fetches; `port` is 443 except in tests (GATEWAY_DOMAIN_VERIFY_HTTPS_PORT). */
export function wellKnownUrl(domain: string, port = 443): string {
  return `https://${domain}${port === 443 ? '' : `:${port}`}${WELL_KNOWN_PATH}`;
}

/** Outcome of one check. `reason` is shown to the organization: it never names an address. */
export type CheckResult = { ok: true } | { ok: false; reason: string };
