import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The file to give an agent in a CA variable that adds to its trust (NODE_EXTRA_CA_CERTS,
 * CODEX_CA_CERTIFICATE): the gateway's CA, plus the certificates of the file the user's
 * environment already names there (a company proxy's CA, say), since each variable names one
 * file and the agent still reaches other hosts (MCP servers, web fetches) through it.
 * The union is written in the data dir's tls/, one file per file the user names, rewritten at every launch so
 * it follows both. An unreadable user file is left out (Node would only warn about it too).
 */
export function mergedCaFile(
  variable: string,
  gatewayCa: string,
  userFile: string | undefined,
  tlsDir: string,
): string {
  if (!userFile || userFile === gatewayCa) return gatewayCa;
  let userCerts: string;
  try {
    userCerts = readFileSync(userFile, 'utf8');
  } catch {
    return gatewayCa;
  }
  mkdirSync(tlsDir, { recursive: true });
  const file = join(
    tlsDir,
    `${variable.toLowerCase()}-${createHash('sha256').update(userFile).digest('hex').slice(0, 12)}.pem`,
  );
  writeFileSync(file, `${readFileSync(gatewayCa, 'utf8').trimEnd()}\n${userCerts.trimEnd()}\n`);
  return file;
}
