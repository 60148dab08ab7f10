/** Console API shapes of the projects feature (docs/console-api.md). */
export interface Project {
  id: string;
  slug: string;
  name: string;
  domains: string[];
  created_at: string;
  updated_at: string;
}

export interface ProjectDomain {
  domain: string;
  status: 'pending' | 'verified';
  verification_method: 'dns' | 'http' | 'development' | 'preexisting' | null;
  created_at: string;
  verified_at: string | null;
  verification: {
    token: string;
    dns_record: { type: 'TXT'; name: string; value: string };
    well_known_url: string;
  };
}

export interface ProxyBackend {
  name: string;
  address: string;
  enable_ssl: boolean;
  check_certificate: string;
  ca_certificate: string;
  sni_hostname: string;
  default: boolean;
  override_host: string;
}

export interface ProxyRoute {
  path: string;
  regex: boolean;
  backend_name: string;
  rank: string;
  continent: string[];
  region: string[];
  country: string[];
}

export interface ProxySettings {
  revision: number;
  description: string;
  is_active: boolean;
  backends: ProxyBackend[];
  routes: ProxyRoute[];
}

export interface ComponentVersion {
  version: string;
  released_at: string;
  changelog: string;
  settings_schema: JsonSchema;
}

export interface Component {
  id: string;
  name: string;
  slug: string;
  category: string;
  subcategory: string;
  description: string;
  latest_version: string;
  documentation_link: string;
  versions: Record<string, ComponentVersion>;
  is_archived: boolean;
}

export interface ProjectComponent {
  id: string;
  component_id: string;
  component_slug: string | null;
  component_version: string;
  category: string | null;
  subcategory: string | null;
  active: boolean;
  settings: Record<string, unknown> | null;
}

export interface CollectedEvent {
  id: string;
  type: string;
  timestamp: string;
  received_at: string;
  project_component_id: string;
  data: Record<string, unknown>;
}

/** The part of JSON Schema the component settings use (TypeBox output). */
export interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
}
