import { isIP } from 'node:net';
import { readSettings, type Settings } from '../config/settings.js';
import { COMPRESSION_MODELS, isCompressionModel } from '../compress/index.js';
import {
  BUNDLE_OF,
  CLIENTS,
  clientProfile,
  shellQuote,
  type ClientName,
  type ClientProfile,
} from './client-profiles.js';
import { formatTrust, trustInfo, type TrustInfo } from './trust.js';
import { checkSlug, createClientKey } from './client-keys.js';
import { probeGateway, probeWarning } from './gateway-probe.js';
import { deploymentOpencodeModels } from './opencode-models.js';
const LOOPBACK_OR_ANY = new Set(['127.0.0.1', '::1', '0.0.0.0', '::', '', 'localhost']);

export interface ConnectOptions {
  client: string;
  /** An existing gateway key; without it one is created. */
  key?: string | undefined;
  org?: string | undefined;
  /** Base origin clients use, when they reach the gateway by another name than this machine's. */
  url?: string | undefined;
  /** A bundle name, or `false` for no compression. */
  compression?: string | false | undefined;
  json?: boolean | undefined;
}

/** The origin clients on this machine use: localhost for a loopback or wildcard bind (the certificate covers it). */
export function gatewayOrigin(settings: Settings, url?: string): string {
  if (url) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:')
      throw new Error('--url must be an https:// URL: the gateway listens on HTTPS only');
    return parsed.origin;
  }
  const host = LOOPBACK_OR_ANY.has(settings.host) ? 'localhost' : settings.host;
  return `https://${isIP(host) === 6 ? `[${host}]` : host}:${settings.gatewayPort}`;
}

/** `gateway trust`: the CA and the variable each kind of client reads. */
export async function trust(options: { json?: boolean | undefined }): Promise<void> {
  const settings = readSettings();
  const info = await trustInfo(settings);
  process.stdout.write(options.json ? JSON.stringify(info) + '\n' : formatTrust(info, gatewayOrigin(settings)));
}

/**
 * `gateway connect <client>`: a key (created in the store like `admin bootstrap` creates
 * tokens, or the one given) and everything the client needs, as shell lines and files, or JSON.
 */
export async function connect(options: ConnectOptions): Promise<void> {
  if (!(CLIENTS as readonly string[]).includes(options.client))
    throw new Error(`unknown client "${options.client}"; one of: ${CLIENTS.join(', ')}`);
  const client = options.client as ClientName;
  if (typeof options.compression === 'string' && !isCompressionModel(options.compression))
    throw new Error(`--compression must be one of: ${COMPRESSION_MODELS.join(', ')}`);
  const org = options.org ?? 'default';
  checkSlug(org);
  const settings = readSettings();
  const origin = gatewayOrigin(settings, options.url);
  const models = client === 'opencode' ? deploymentOpencodeModels(settings) : undefined;
  const trusted = await trustInfo(settings);
  const bundle = options.compression === false ? undefined : (options.compression ?? BUNDLE_OF[client]);
  const created = options.key
    ? undefined
    : await createClientKey(settings, { client, org, compression: bundle !== undefined, via: 'connect' });
  await warnUnlessServed(settings, origin, options.key ?? created!.secret, trusted);
  const profile = clientProfile(client, {
    origin,
    apiKey: options.key ?? created!.secret,
    caFile: trusted.caFile,
    caBundleFile: trusted.caBundleFile,
    bundle,
    opencodeModels: models,
  });
  process.stdout.write(
    options.json
      ? JSON.stringify({
          ...profile,
          ...(created ? { key_id: created.id, organization_id: created.organizationId } : {}),
        }) + '\n'
      : formatProfile(profile, created),
  );
}

/**
 * Warns on stderr when the gateway clients reach at `origin` is not the one using this data
 * directory and store (gateway-probe.ts): what the printed key would otherwise meet as a 401.
 */
export async function warnUnlessServed(
  settings: Settings,
  origin: string,
  apiKey: string,
  trusted: TrustInfo,
): Promise<void> {
  const outcome = await probeGateway(origin, apiKey, trusted.caFile);
  const warning = probeWarning(outcome, { origin, dataDir: settings.dataDir, databaseUrl: settings.databaseUrl });
  if (warning) process.stderr.write(`gateway: warning: ${warning}\n`);
}

function formatProfile(profile: ClientProfile, created: { id: string } | undefined): string {
  const lines = [`# ${profile.client} → this gateway${created ? ` (new key ${created.id}; shown once)` : ''}`];
  for (const file of profile.files) {
    const path = file.path.replace(/^~\//, '$HOME/');
    const dir = path.slice(0, path.lastIndexOf('/'));
    lines.push(
      `# ${file.path} (this replaces the file; merge by hand if you have one)`,
      `mkdir -p "${dir}" && cat > "${path}" <<'GATEWAY_EOF'`,
      file.content.trimEnd(),
      'GATEWAY_EOF',
    );
  }
  lines.push(...Object.entries(profile.env).map(([name, value]) => `export ${name}=${shellQuote(value)}`));
  if (Object.keys(profile.quietEnv).length > 0) {
    lines.push('# optional: no calls to the vendor (telemetry, update and model-list checks)');
    lines.push(...Object.entries(profile.quietEnv).map(([name, value]) => `export ${name}=${shellQuote(value)}`));
  }
  lines.push(...profile.notes.map((note) => `# ${note}`));
  return lines.join('\n') + '\n';
}
