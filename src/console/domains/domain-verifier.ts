import { Resolver } from 'node:dns/promises';
import type { DomainSettings } from '../../config/domain-settings.js';
import { ConsoleError } from '../console-error.js';
import { checkDnsTxt } from './dns-txt-check.js';
import type { CheckResult } from './challenge.js';
import { checkWellKnownFile } from './well-known-check.js';

export type ProofMethod = 'dns' | 'http';

export type VerificationResult = { ok: true; method: ProofMethod } | { ok: false; reasons: string[] };

/**
 * Runs the ownership checks of a domain claim: the DNS TXT record and the well-known HTTPS
 * file (both when no method is named, in parallel, so the worst case is one timeout). Each
 * check runs within `verifyTimeoutMs`, and at most `maxConcurrentChecks` verifications run at
 * once per instance, since each one makes outbound requests on a client's behalf.
 */
export class DomainVerifier {
  private inFlight = 0;

  constructor(private readonly settings: DomainSettings) {}

  async verify(domain: string, token: string, method?: ProofMethod): Promise<VerificationResult> {
    // Too many verifications in flight on this instance: the client may retry in a moment.
    if (this.inFlight >= this.settings.maxConcurrentChecks)
      throw new ConsoleError('verification_busy', undefined, null, { 'retry-after': '1' });
    this.inFlight++;
    const resolvers: Resolver[] = [];
    const resolver = () => {
      const r = new Resolver({ timeout: Math.max(100, Math.floor(this.settings.verifyTimeoutMs / 2)), tries: 2 });
      if (this.settings.dnsServers.length > 0) r.setServers(this.settings.dnsServers);
      resolvers.push(r);
      return r;
    };
    // c-ares retries on its own schedule: the deadline cancels whatever is still pending.
    const deadline = setTimeout(() => resolvers.forEach((r) => r.cancel()), this.settings.verifyTimeoutMs);
    const checks: Array<Promise<{ method: ProofMethod; result: CheckResult }>> = [];
    if (method !== 'http')
      checks.push(checkDnsTxt(resolver(), domain, token).then((result) => ({ method: 'dns', result })));
    if (method !== 'dns')
      checks.push(
        checkWellKnownFile(domain, token, {
          resolver: resolver(),
          port: this.settings.httpsPort,
          timeoutMs: this.settings.verifyTimeoutMs,
          allowPrivate: this.settings.allowPrivate,
          extraCa: this.settings.extraCa,
        }).then((result) => ({ method: 'http', result })),
      );
    // The slot is held until every check has ended, so the cap bounds the outbound work too.
    void Promise.allSettled(checks).then(() => {
      clearTimeout(deadline);
      this.inFlight--;
    });
    // The first check that passes answers; the other may still be waiting for its timeout.
    try {
      const passed = await Promise.any(
        checks.map((check) => check.then((o) => (o.result.ok ? o : Promise.reject(new Error(o.result.reason))))),
      );
      return { ok: true, method: passed.method };
    } catch {
      const outcomes = await Promise.all(checks);
      return { ok: false, reasons: outcomes.flatMap((o) => (o.result.ok ? [] : [o.result.reason])) };
    }
  }
}
