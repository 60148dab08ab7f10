import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { CaMaterial, IssuedCertificate } from './local-ca.js';

/**
 * Certificates are made in a short-lived child process: the X.509 library, its ASN.1 and
 * dependency-injection stacks and the garbage of signing (~8 MB resident) then never enter the
 * gateway's heap, where they stayed for the life of the process after a first start. A worker
 * thread was tried: the memory its allocator took stayed with the process (docs/decisions.md,
 * "Memory"). A start that finds its certificates on disk starts no process.
 */
export interface CertificateJob {
  /** The CA to sign with; a new one is made when absent. */
  ca?: CaMaterial;
  caCommonName: string;
  names: readonly string[];
  /** Epoch ms: the validity of both certificates starts from it. */
  now: number;
}

export interface MadeCertificates {
  ca: CaMaterial;
  leaf: IssuedCertificate;
}

/** The child's script next to this file: `.js` in dist/ and the bundle, `.ts` through tsx (tests). */
function childScript(): string {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return fileURLToPath(new URL(`./local-ca-child.${extension}`, import.meta.url));
}

export async function makeCertificates(job: CertificateJob): Promise<MadeCertificates> {
  // Node's own flags (tsx's loader under tests) go to the child; its output is the gateway's.
  const child = fork(childScript(), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // A child that dies without answering must not leave the start waiting forever.
  const exited = new AbortController();
  child.once('exit', (code, signal) =>
    exited.abort(new Error(`the certificate process exited (${signal ?? `code ${code}`}) without an answer`)),
  );
  try {
    child.send(job);
    const [reply] = (await once(child, 'message', { signal: exited.signal })) as [
      { made?: MadeCertificates; error?: string },
    ];
    if (!reply.made) throw new Error(`could not make the TLS certificates: ${reply.error}`);
    return reply.made;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill();
  }
}
