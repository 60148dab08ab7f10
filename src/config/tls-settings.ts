/** TLS settings beyond TLS_CERT_FILE/TLS_KEY_FILE (read in settings.ts with the rest). */
export interface TlsSettings {
  /** TLS_EXTRA_NAMES: DNS names and IP addresses the generated certificate covers too. */
  extraNames: string[];
  /** TLS_CA_FILE: the CA that signed an operator's certificate, shown by `gateway trust`/`connect`. */
  caFile: string | undefined;
  /** TLS_WATCH_INTERVAL_MS: how often the certificate and key files are checked for a renewal. */
  watchIntervalMs: number;
}

export function readTlsSettings(env: NodeJS.ProcessEnv): TlsSettings {
  return {
    extraNames: (env.TLS_EXTRA_NAMES ?? '')
      .split(/[\s,]+/)
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    caFile: env.TLS_CA_FILE || undefined,
    watchIntervalMs: watchInterval(env.TLS_WATCH_INTERVAL_MS),
  };
}

function watchInterval(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 2000;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 50 || value > 3_600_000)
    throw new Error(`TLS_WATCH_INTERVAL_MS must be an integer from 50 to 3600000, got "${raw}"`);
  return value;
}
