import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startWellKnownServer, type WellKnownServer } from '../support/well-known-server.js';

/**
 * Project domains in development mode: the claim objects, verification through a well-known
 * file served by a local HTTPS server (private targets allowed here; production mode refuses
 * them, test/security/domain-claim.test.ts), and the limits of that check: no redirects, at
 * most 4 KiB read, a timeout, a valid certificate, a cap on checks in flight.
 */
type Org = { id: string; token: string; slug: string };
const rnd = () => randomBytes(4).toString('hex');
const event = { data_collection: { events: [{ type: 'track', data: { name: 'checkout' } }] } };

for (const store of storeKinds()) {
  describe(`project domains (${store})`, () => {
    let h: Harness;
    let dns: TestDnsServer;
    let site: WellKnownServer;
    let client: ReturnType<typeof collectorClient>;
    let org: Org;
    before(async () => {
      dns = await startDnsServer();
      site = await startWellKnownServer('example.com');
      h = await startHarness({
        store,
        env: {
          GATEWAY_DNS_SERVERS: dns.address,
          GATEWAY_DOMAIN_VERIFY_TIMEOUT_MS: '1500',
          GATEWAY_DOMAIN_VERIFY_ALLOW_PRIVATE: '1',
          GATEWAY_DOMAIN_VERIFY_HTTPS_PORT: String(site.port),
          GATEWAY_DOMAIN_VERIFY_CA_FILE: site.caFile,
          GATEWAY_DOMAIN_VERIFY_CONCURRENCY: '1',
        },
      });
      org = await h.organization();
      client = collectorClient(h.running.urls.collector, h.ca);
    });
    after(async () => {
      await client.close();
      await h.stop();
      await site.close();
      await dns.close();
    });

    const call = (method: string, path: string, body?: unknown, token = org.token) =>
      h.console(method, path, { token, ...(body !== undefined ? { body } : {}) });
    /** A project claiming `domain`, which the test DNS server points at the local HTTPS server. */
    async function claimed(domain = `site-${rnd()}.example.com`) {
      dns.setA(domain, ['127.0.0.1']);
      const project = await call('POST', '/v1/projects', { slug: `p-${rnd()}`, name: 'Site', domains: [domain] });
      assert.equal(project.status, 201, project.text);
      const claim = await call('GET', `/v1/projects/${project.json.id}/domains/${domain}`);
      return { projectId: project.json.id as string, domain, token: claim.json.verification.token as string };
    }
    const verify = (projectId: string, domain: string, body: unknown = { method: 'http' }) =>
      call('POST', `/v1/projects/${projectId}/domains/${domain}/verify`, body);

    it('lists claims with their status and how to prove control; local names are verified at once in development mode', async () => {
      const local = `shop-${rnd()}.example.test`;
      const pending = `shop-${rnd()}.example.com`;
      const project = await call('POST', '/v1/projects', { slug: `p-${rnd()}`, name: 'x', domains: [pending, local] });
      assert.equal(project.status, 201, project.text);
      const list = await call('GET', `/v1/projects/${project.json.id}/domains`);
      assert.equal(list.status, 200);
      assert.equal(list.json.object, 'list');
      const byName = (name: string) => list.json.data.find((d: { domain: string }) => d.domain === name);
      const [com, test] = [byName(pending), byName(local)];
      assert.deepEqual(Object.keys(com).sort(), [
        'created_at',
        'domain',
        'object',
        'project_id',
        'status',
        'verification',
        'verification_method',
        'verified_at',
      ]);
      assert.equal(com.object, 'project_domain');
      assert.equal(com.domain, pending);
      assert.equal(com.status, 'pending');
      assert.equal(com.verified_at, null);
      assert.match(com.verification.token, /^gateway-verification=[A-Za-z0-9_-]{32}$/);
      assert.deepEqual(com.verification.dns_record, {
        type: 'TXT',
        name: `_gateway-challenge.${pending}`,
        value: com.verification.token,
      });
      assert.equal(
        com.verification.well_known_url,
        `https://${pending}:${site.port}/.well-known/gateway-verification.txt`,
      );
      assert.equal(test.domain, local);
      assert.equal(test.status, 'verified');
      assert.equal(test.verification_method, 'development');
      assert.equal((await client.call('POST', local, { body: event })).status, 202);
      assert.equal((await client.call('POST', pending, { body: event })).status, 404);
    });

    it('verification through a well-known file on a local HTTPS server; the collector then serves the domain', async () => {
      const c = await claimed();
      site.answer(c.domain, { status: 200, body: `${c.token}\n` });
      assert.equal((await client.call('POST', c.domain, { body: event })).status, 404);
      const verified = await verify(c.projectId, c.domain, undefined);
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.json.status, 'verified');
      assert.equal(verified.json.verification_method, 'http');
      assert.ok(site.requests.some((r) => r.host === c.domain && r.path === '/.well-known/gateway-verification.txt'));
      assert.equal((await client.call('POST', c.domain, { body: event })).status, 202);
      // Replacing the project's domains keeps the claims that stay, verified.
      const other = `other-${rnd()}.example.com`;
      const updated = await call('POST', `/v1/projects/${c.projectId}`, { domains: [c.domain, other] });
      assert.equal(updated.status, 200, updated.text);
      const kept = await call('GET', `/v1/projects/${c.projectId}/domains/${c.domain}`);
      assert.equal(kept.json.status, 'verified');
      assert.equal(kept.json.verification.token, c.token);
      assert.equal((await client.call('POST', c.domain, { body: event })).status, 202);
      // Removing a domain stops serving it at once.
      await call('POST', `/v1/projects/${c.projectId}`, { domains: [other] });
      assert.equal((await client.call('POST', c.domain, { body: event })).status, 404);
    });

    it('the well-known check follows no redirect, reads at most 4 KiB, needs the token and a valid certificate', async () => {
      const cases: Array<{ answer: Parameters<WellKnownServer['answer']>[1]; reason: RegExp; domain?: string }> = [
        {
          answer: { status: 302, headers: { location: 'https://127.0.0.1/.well-known/gateway-verification.txt' } },
          reason: /redirect \(302\); redirects are not followed/,
        },
        { answer: { status: 200, body: 'x'.repeat(5000) }, reason: /larger than 4096 bytes/ },
        {
          answer: { status: 200, body: 'gateway-verification=someone-else' },
          reason: /does not hold this claim's token/,
        },
        { answer: { status: 404 }, reason: /answered 404/ },
        // The certificate names *.example.com, not this host.
        { answer: { status: 200 }, reason: /TLS certificate is not valid/, domain: `site-${rnd()}.example.org` },
      ];
      for (const { answer, reason, domain } of cases) {
        const c = await claimed(domain);
        site.answer(c.domain, answer === 'hang' ? answer : { ...answer, body: answer.body ?? c.token });
        const refused = await verify(c.projectId, c.domain);
        assert.equal(refused.status, 422, refused.text);
        assert.match(refused.json.message, reason);
        assert.ok(!refused.text.includes('127.0.0.1'), refused.text);
        assert.equal((await call('GET', `/v1/projects/${c.projectId}/domains/${c.domain}`)).json.status, 'pending');
      }
    });

    it('a check that gets no answer times out (422); meanwhile a second one gets 429 (one in flight allowed here)', async () => {
      const c = await claimed();
      site.answer(c.domain, 'hang');
      const hung = site.nextHang();
      const first = verify(c.projectId, c.domain);
      await hung;
      const second = await verify(c.projectId, c.domain, { method: 'dns' });
      assert.equal(second.status, 429, second.text);
      assert.equal(second.headers['retry-after'], '1');
      const timedOut = await first;
      assert.equal(timedOut.status, 422, timedOut.text);
      assert.match(timedOut.json.message, /timed out/);
    });

    it('bad requests: unknown domain or method, other organizations, read tokens', async () => {
      const c = await claimed();
      assert.equal((await verify(c.projectId, `nope-${rnd()}.example.com`)).status, 404);
      assert.equal((await call('GET', `/v1/projects/${c.projectId}/domains/nope.example.com`)).status, 404);
      const badMethod = await verify(c.projectId, c.domain, { method: 'smtp' });
      assert.equal(badMethod.status, 400);
      assert.equal(badMethod.json.param, 'method');
      const extra = await verify(c.projectId, c.domain, { method: 'dns', force: true });
      assert.equal(extra.status, 400);
      assert.equal((await call('GET', `/v1/projects/${c.projectId}/domains/Not_A_Domain`)).status, 400);
      const stranger = await h.organization();
      assert.equal((await verify(c.projectId, c.domain, undefined)).status, 422);
      assert.equal((await call('GET', `/v1/projects/${c.projectId}/domains`, undefined, stranger.token)).status, 404);
      const strangerVerify = await call(
        'POST',
        `/v1/projects/${c.projectId}/domains/${c.domain}/verify`,
        {},
        stranger.token,
      );
      assert.equal(strangerVerify.status, 404);
      const reader = await h.organization(org.slug, 'read');
      const readOnly = await h.console('POST', `/v1/projects/${c.projectId}/domains/${c.domain}/verify`, {
        token: reader.token,
      });
      assert.equal(readOnly.status, 403);
    });
  });
}
