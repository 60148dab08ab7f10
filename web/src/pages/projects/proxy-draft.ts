import { splitList } from '../../components/form.js';
import type { ProxyBackend, ProxyRoute } from './types.js';

// A proxy settings revision as the editor holds it while it is typed: the routes' lists as text.

export interface RouteDraft {
  path: string;
  regex: boolean;
  backend_name: string;
  rank: string;
  continent: string;
  country: string;
  region: string;
}

export const NEW_BACKEND: ProxyBackend = {
  name: '',
  address: '',
  enable_ssl: true,
  check_certificate: '',
  ca_certificate: '',
  sni_hostname: '',
  default: false,
  override_host: '',
};

export const routeDraft = (route: ProxyRoute): RouteDraft => ({
  path: route.path,
  regex: route.regex,
  backend_name: route.backend_name,
  rank: route.rank,
  continent: route.continent.join(', '),
  country: route.country.join(', '),
  region: route.region.join(', '),
});

/** The create body (spec 2.10) for the draft as typed. */
export function bodyOf(description: string, activate: boolean, backends: ProxyBackend[], routes: RouteDraft[]) {
  return {
    description,
    is_active: activate,
    backends,
    routes: routes.map((route) => ({
      path: route.path,
      regex: route.regex,
      backend_name: route.backend_name,
      rank: route.rank.trim() === '' ? '0' : route.rank.trim(),
      continent: splitList(route.continent.toUpperCase()),
      country: splitList(route.country.toUpperCase()),
      region: splitList(route.region),
    })),
  };
}
