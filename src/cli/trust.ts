import type { Settings } from '../config/settings.js';
import { fingerprintOf, loadTls, tlsOptionsOf } from '../server/tls.js';
import { shellQuote } from './client-profiles.js';

/** What clients must trust to reach this gateway, and the variable each kind of client reads. */
export interface TrustInfo {
  /** undefined: the operator's certificate, signed by a CA the gateway was not told about. */
  caFile: string | undefined;
  caBundleFile: string | undefined;
  fingerprint256: string | undefined;
  generated: boolean;
  variables: Array<{ name: string; value: string; clients: string }>;
}

/**
 * Reads (and on a data dir that has none yet, creates) the TLS material exactly as `serve`
 * does, so the CA printed is the one the next start serves.
 */
export async function trustInfo(settings: Settings): Promise<TrustInfo> {
  const tls = await loadTls(tlsOptionsOf(settings));
  const ca = tls.caFile;
  const bundle = tls.caBundleFile ?? ca;
  const variables = ca
    ? [
        {
          name: 'NODE_EXTRA_CA_CERTS',
          value: ca,
          clients: 'Node.js and Bun: Claude Code, opencode, the openai/anthropic Node SDKs, Vercel ai, Cline, Continue',
        },
        { name: 'CODEX_CA_CERTIFICATE', value: ca, clients: 'Codex (added to the system roots)' },
        {
          name: 'SSL_CERT_FILE',
          value: bundle!,
          clients:
            'Python (httpx: openai/anthropic Python SDKs, Aider, LiteLLM) and OpenSSL tools; replaces the system store',
        },
        { name: 'REQUESTS_CA_BUNDLE', value: bundle!, clients: 'Python requests; replaces the system store' },
      ]
    : [];
  return {
    caFile: ca,
    caBundleFile: tls.caBundleFile,
    fingerprint256: ca ? fingerprintOf(ca) : undefined,
    generated: tls.generated,
    variables,
  };
}

export function formatTrust(info: TrustInfo, gatewayOrigin: string): string {
  if (!info.caFile)
    return (
      '# The gateway serves the certificate of TLS_CERT_FILE. If a public CA signed it, clients need no\n' +
      '# variable. Otherwise set TLS_CA_FILE to the CA that signed it and run `gateway trust` again.\n'
    );
  const lines = [
    `# ${info.generated ? 'Local CA of this gateway' : 'CA of the operator certificate (TLS_CA_FILE)'}: ${info.caFile}`,
    `# SHA-256 fingerprint: ${info.fingerprint256}`,
    ...(info.caBundleFile ? [`# ${info.caBundleFile} holds the system roots plus this CA.`] : []),
    '',
  ];
  for (const variable of info.variables)
    lines.push(`# ${variable.clients}`, `export ${variable.name}=${shellQuote(variable.value)}`);
  lines.push(
    '# curl',
    `curl --cacert ${shellQuote(info.caFile)} ${gatewayOrigin}/v1/models -H "Authorization: Bearer $KEY"`,
  );
  lines.push('# Per-client setup with a key: gateway connect <client>');
  return lines.join('\n') + '\n';
}
