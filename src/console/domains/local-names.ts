import { isIPv4 } from 'node:net';

/**
 * Names that cannot be proved on the public internet and only ever mean "this machine" or "a
 * test": `localhost` and `*.localhost` (RFC 6761), the reserved test TLDs `.test`, `.example`
 * and `.invalid` (RFC 2606), and IPv4 loopback addresses. In development mode an organization
 * may claim them without proof; in production mode they are refused.
 */
const LOCAL_SUFFIXES = ['.localhost', '.test', '.example', '.invalid'];

export function isLocalName(domain: string): boolean {
  if (domain === 'localhost') return true;
  if (LOCAL_SUFFIXES.some((suffix) => domain.endsWith(suffix))) return true;
  return isIPv4(domain) && domain.startsWith('127.');
}
