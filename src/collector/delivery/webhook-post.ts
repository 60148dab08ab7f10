import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { UndiciAgent, requestThrough, type RequestOptions } from '../../server/undici-parts.js';
import { guardedLookup, isPublicAddress, type TargetPolicy } from '../../server/address-guard.js';

export class WebhookError extends Error {}

/**
 * POSTs JSON to webhook URLs: https only (http when private targets are allowed), no redirects,
 * every connection through the SSRF guard pinned to the checked address, a timeout per request.
 * Any 2xx is success; anything else throws, for the outbox to retry. Shared by the collector's
 * webhook component and alert delivery.
 */
export class WebhookPoster {
  private readonly agent: Agent;

  constructor(
    private readonly policy: TargetPolicy,
    private readonly timeoutMs: number,
  ) {
    this.agent = new UndiciAgent({
      connect: { lookup: guardedLookup(policy) as never, timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connections: 16,
    });
  }

  async post(target: string, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<void> {
    const url = new URL(target);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.policy.allowPrivate))
      throw new WebhookError('webhook URL must be https');
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal) && !this.policy.allowPrivate && !isPublicAddress(literal))
      throw new WebhookError('webhook address is private or reserved');
    const response = await requestThrough(this.agent, url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'llm-gateway-webhook/1.0', ...headers },
      body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      maxRedirections: 0,
    } as RequestOptions);
    await response.body.dump().catch(() => undefined);
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new WebhookError(`webhook answered ${response.statusCode}`);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
