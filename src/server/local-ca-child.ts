import { createCa, issueServerCertificate } from './local-ca.js';
import type { CertificateJob, MadeCertificates } from './local-ca-process.js';

/** The certificate process's one job (local-ca-process.ts): the CA when there is none, then the leaf. */
async function run(job: CertificateJob): Promise<MadeCertificates> {
  const now = new Date(job.now);
  const ca = job.ca ?? (await createCa({ commonName: job.caCommonName, now }));
  return { ca, leaf: await issueServerCertificate(ca, job.names, now) };
}

process.once('message', (job: CertificateJob) => {
  void run(job)
    .then(
      (made) => ({ made }),
      (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
    )
    .then((reply) => process.send!(reply, () => process.disconnect()));
});
