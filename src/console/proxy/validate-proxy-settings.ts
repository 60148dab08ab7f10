import type { ProxyBackend, ProxyRoute } from '../../store/proxy-settings.js';
import type { CreateProxySettingsBody } from '../schemas/console-collector.js';
import { ConsoleError } from '../console-error.js';
import { compileRoutePattern, RoutePatternError } from './route-pattern.js';

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_BRACKETED = /^\[([0-9A-Fa-f:.]{2,45})\]$/;

/** `host`, `host:port`, `1.2.3.4:8080`, `[2001:db8::1]:443`; a port is 1–65535. */
export function isHostPort(address: string): boolean {
  let host = address;
  let port: string | undefined;
  const bracket = /^(\[[^\]]+\])(?::(\d+))?$/.exec(address);
  if (bracket) {
    host = bracket[1]!;
    port = bracket[2];
    if (!IPV6_BRACKETED.test(host) || !host.includes(':')) return false;
  } else {
    const colon = address.lastIndexOf(':');
    if (colon >= 0) {
      host = address.slice(0, colon);
      port = address.slice(colon + 1);
      if (!/^\d+$/.test(port)) return false;
    }
    if (!(IPV4.test(host) || (HOSTNAME.test(host) && !/^[\d.]+$/.test(host)))) return false;
  }
  if (port !== undefined) {
    const n = Number(port);
    if (!/^\d{1,5}$/.test(port) || n < 1 || n > 65535) return false;
  }
  return true;
}

const bad = (param: string, message: string) => new ConsoleError('invalid_request', message, param);

/**
 * The checks of a new revision beyond its JSON schema: host[:port] addresses, unique backend
 * names, exactly one default backend, routes naming existing backends, and regex routes that
 * RE2 compiles (matched in linear time: route-pattern.ts). Returns the revision with defaults filled in.
 */
export function validateProxySettings(body: CreateProxySettingsBody): {
  backends: ProxyBackend[];
  routes: ProxyRoute[];
} {
  const backends: ProxyBackend[] = body.backends.map((b) => ({
    name: b.name,
    address: b.address,
    enable_ssl: b.enable_ssl ?? true,
    check_certificate: b.check_certificate ?? '',
    ca_certificate: b.ca_certificate ?? '',
    sni_hostname: b.sni_hostname ?? '',
    default: b.default ?? false,
    override_host: b.override_host ?? '',
  }));
  const names = new Set<string>();
  backends.forEach((backend, i) => {
    if (!isHostPort(backend.address))
      throw bad(
        `backends[${i}].address`,
        `backends[${i}].address must be host or host:port (an IPv6 address in brackets).`,
      );
    if (names.has(backend.name)) throw bad(`backends[${i}].name`, `Backend name "${backend.name}" is used twice.`);
    names.add(backend.name);
    if (backend.sni_hostname && !HOSTNAME.test(backend.sni_hostname))
      throw bad(`backends[${i}].sni_hostname`, `backends[${i}].sni_hostname must be a host name.`);
    if (backend.override_host && !isHostPort(backend.override_host))
      throw bad(`backends[${i}].override_host`, `backends[${i}].override_host must be host or host:port.`);
    if (
      backend.ca_certificate &&
      !/^-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*$/.test(backend.ca_certificate)
    ) {
      throw bad(`backends[${i}].ca_certificate`, `backends[${i}].ca_certificate must be a PEM certificate.`);
    }
  });
  const defaults = backends.filter((b) => b.default).length;
  if (defaults !== 1) throw bad('backends', `Exactly one backend must have default: true (found ${defaults}).`);

  const routes: ProxyRoute[] = (body.routes ?? []).map((r, i) => {
    const route: ProxyRoute = {
      path: r.path,
      regex: r.regex ?? false,
      backend_name: r.backend_name,
      rank: r.rank ?? '0',
      continent: r.continent ?? [],
      region: r.region ?? [],
      country: r.country ?? [],
    };
    if (!names.has(route.backend_name))
      throw bad(
        `routes[${i}].backend_name`,
        `routes[${i}].backend_name "${route.backend_name}" names no backend of this revision.`,
      );
    if (route.regex) {
      try {
        compileRoutePattern(route.path);
      } catch (error) {
        if (!(error instanceof RoutePatternError)) throw error;
        throw bad(
          `routes[${i}].path`,
          `routes[${i}].path is not a regular expression RE2 accepts (${error.message}). Patterns are matched in linear time, so back-references and lookaround are not supported.`,
        );
      }
    } else if (!route.path.startsWith('/') || /[\s\x00-\x1f]/.test(route.path)) {
      throw bad(
        `routes[${i}].path`,
        `routes[${i}].path must start with / and contain no whitespace (or set regex: true).`,
      );
    }
    return route;
  });
  return { backends, routes };
}
