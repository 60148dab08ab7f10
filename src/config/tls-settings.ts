/** TLS settings beyond TLS_CERT_FILE/TLS_KEY_FILE (read in settings.ts with the rest). */
export interface TlsSettings {
  /** TLS_EXTRA_NAMES: DNS names and IP addresses the generated certificate covers too. */
  extraNames: string[];
  /** TLS_CA_FILE: the CA that signed an operator's certificate, shown by `gateway trust`/`connect`. */
  caFile: string | undefined;
}

export function readTlsSettings(env: NodeJS.ProcessEnv): TlsSettings {
  return {
    extraNames: (env.TLS_EXTRA_NAMES ?? '')
      .split(/[\s,]+/)
      .map((name) => name.trim())
      .filter((name) => name !== ''),
    caFile: env.TLS_CA_FILE || undefined,
  };
}
