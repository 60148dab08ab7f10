import type { IncomingHttpHeaders } from 'node:http';

/**
 * The gateway key from the request: `Authorization: Bearer <key>`, or HTTP Basic with the key
 * as user name and an empty password, or (where the route allows it) `x-api-key`. Whether the
 * route allows it is asked only when no Authorization header gave a key (reading it costs the
 * caller a route lookup).
 */
export function extractGatewayKey(headers: IncomingHttpHeaders, allowXApiKey: () => boolean): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const space = authorization.indexOf(' ');
    const scheme = space > 0 ? authorization.slice(0, space).toLowerCase() : '';
    const value = space > 0 ? authorization.slice(space + 1).trim() : '';
    if (scheme === 'bearer' && value) return value;
    if (scheme === 'basic' && value) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = colon >= 0 ? decoded.slice(0, colon) : decoded;
      return user || undefined;
    }
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() && allowXApiKey()) return apiKey.trim();
  return undefined;
}
