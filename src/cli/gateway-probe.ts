import { readFileSync } from 'node:fs';
import { UndiciAgent, requestThrough } from '../server/undici-parts.js';

/**
 * Whether the gateway clients will reach at `origin` is the one whose data directory a CLI
 * command just read: a GET /v1/models with the key that command printed, trusting only the CA
 * it printed. This tests what a user would otherwise find out from the agent (a refused
 * certificate, or 401 for a key made in another store), and needs no state of its own; a
 * pid file would say a gateway runs on this data dir, not that clients reach it at that URL.
 */
export type ProbeOutcome =
  | { kind: 'serving' }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'other-ca'; reason: string }
  | { kind: 'unknown-key'; status: number };

const PROBE_TIMEOUT_MS = 3_000;

export async function probeGateway(origin: string, apiKey: string, caFile: string | undefined): Promise<ProbeOutcome> {
  const dispatcher = new UndiciAgent({
    connect: { ...(caFile ? { ca: readFileSync(caFile, 'utf8') } : {}), timeout: PROBE_TIMEOUT_MS },
    headersTimeout: PROBE_TIMEOUT_MS,
    bodyTimeout: PROBE_TIMEOUT_MS,
  });
  try {
    const response = await requestThrough(dispatcher, `${origin}/v1/models`, {
      method: 'GET',
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await response.body.dump();
    if (response.statusCode === 401 || response.statusCode === 403)
      return { kind: 'unknown-key', status: response.statusCode };
    return { kind: 'serving' };
  } catch (error) {
    const codes = errorCodes(error);
    const reason = codes.length ? codes.join(', ') : error instanceof Error ? error.message : String(error);
    if (codes.some((code) => /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)))
      return { kind: 'other-ca', reason };
    return { kind: 'unreachable', reason };
  } finally {
    await dispatcher.close();
  }
}

/** The error codes along the cause chain (undici wraps the socket's error). */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/** The warning a command prints when the probe did not reach a gateway using `dataDir`; undefined when it did. */
export function probeWarning(
  outcome: ProbeOutcome,
  at: { origin: string; dataDir: string; databaseUrl: string | undefined },
): string | undefined {
  const store = at.databaseUrl ? 'its DATABASE_URL' : `GATEWAY_DATA_DIR=${at.dataDir}`;
  switch (outcome.kind) {
    case 'serving':
      return undefined;
    case 'unreachable':
      return `no gateway answers at ${at.origin} (${outcome.reason}): start \`gateway serve\` with ${store}, or pass --url with the address clients reach it at`;
    case 'other-ca':
      return `the gateway at ${at.origin} presents a certificate not signed by the CA of ${at.dataDir} (${outcome.reason}): it serves another data directory; run this command with that gateway's GATEWAY_DATA_DIR`;
    case 'unknown-key':
      return `the gateway at ${at.origin} refuses this key (${outcome.status}): it uses another store than ${store}; run this command with that gateway's GATEWAY_DATA_DIR and DATABASE_URL`;
  }
}
