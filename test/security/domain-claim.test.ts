import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startWellKnownServer, type WellKnownServer } from '../support/well-known-server.js';

/**
 * Issue 16, row 6: organization B registered a domain that organization A serves, and the
 * collector at once took that host's events for B. Now a domain is served only after its
 * organization proved control (DNS TXT or a well-known HTTPS file), and a verified domain
 * cannot be claimed by anyone else. The service runs in production mode here, with a real DNS
 * server on loopback as its resolver.
 */
type Org = { id: string; token: string; slug: string };
const rnd = () => randomBytes(4).toString('hex');
const event = { data_collection: { events: [{ type: 'track', data: { name: 'checkout' } }] } };

for (const store of storeKinds()) {
  describe(`domain claims in production mode (${store})`, () => {
    let h: Harness;
    let dns: TestDnsServer;
    let site: WellKnownServer;
    let client: ReturnType<typeof collectorClient>;
    let a: Org;
    let b: Org;
    before(async () => {
      dns = await startDnsServer();
      site = await startWellKnownServer('example.com');
      h = await startHarness({
        store,
        env: {
          GATEWAY_ENV: 'production',
          GATEWAY_DNS_SERVERS: dns.address,
          GATEWAY_DOMAIN_VERIFY_TIMEOUT_MS: '3000',
          // Were the SSRF guard to let a loopback address through, the check would reach this server.
          GATEWAY_DOMAIN_VERIFY_HTTPS_PORT: String(site.port),
          GATEWAY_DOMAIN_VERIFY_CA_FILE: site.caFile,
        },
      });
      a = await h.organization();
      b = await h.organization();
      client = collectorClient(h.running.urls.collector, h.ca);
    });
    after(async () => {
      await client.close();
      await h.stop();
      await site.close();
      await dns.close();
    });

    const createProject = (org: Org, domains: string[]) =>
      h.console('POST', '/v1/projects', { token: org.token, body: { slug: `p-${rnd()}`, name: 'Shop', domains } });
    const verify = (org: Org, projectId: string, domain: string, body?: unknown) =>
      h.console('POST', `/v1/projects/${projectId}/domains/${domain}/verify`, {
        token: org.token,
        ...(body !== undefined ? { body } : {}),
      });
    const tokenOf = async (org: Org, projectId: string, domain: string): Promise<string> => {
      const claim = await h.console('GET', `/v1/projects/${projectId}/domains/${domain}`, { token: org.token });
      assert.equal(claim.status, 200, claim.text);
      return claim.json.verification.token;
    };

    it('a domain claimed without proof is not served: the collector answers as for an unknown host', async () => {
      const victim = `shop-${rnd()}.example.com`;
      const claimed = await createProject(b, [victim]);
      assert.equal(claimed.status, 201, claimed.text);
      const unverified = await client.call('POST', victim, { body: event });
      const unknown = await client.call('POST', `nobody-${rnd()}.example.com`, { body: event });
      assert.equal(unknown.status, 404);
      assert.equal(unverified.status, unknown.status, unverified.text);
      assert.deepEqual(unverified.json, unknown.json);
      const listed = await h.console('GET', `/v1/projects/${claimed.json.id}/domains`, { token: b.token });
      assert.equal(listed.json.data[0].status, 'pending');
    });

    it('verification through a DNS TXT record on a real DNS server; another organization then gets 409 and its pending claim is dropped', async () => {
      const domain = `store-${rnd()}.example.com`;
      // B claims first (pending), then A, the domain's owner.
      const early = await createProject(b, [domain]);
      assert.equal(early.status, 201, early.text);
      const owner = await createProject(a, [domain]);
      assert.equal(owner.status, 201, owner.text);
      const tokenA = await tokenOf(a, owner.json.id, domain);
      const tokenB = await tokenOf(b, early.json.id, domain);
      assert.notEqual(tokenA, tokenB);

      // Nothing published yet: 422 saying what was looked for.
      const missing = await verify(a, owner.json.id, domain, { method: 'dns' });
      assert.equal(missing.status, 422, missing.text);
      assert.equal(missing.json.error, 'Unprocessable Entity');
      assert.match(missing.json.message, new RegExp(`_gateway-challenge\\.${domain.replace(/\./g, '\\.')}`));

      // A publishes its token: B's claim still cannot verify with it.
      dns.setTxt(`_gateway-challenge.${domain}`, ['v=spf1 -all', tokenA]);
      const stolen = await verify(b, early.json.id, domain, { method: 'dns' });
      assert.equal(stolen.status, 422, stolen.text);

      const verified = await verify(a, owner.json.id, domain, { method: 'dns' });
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.json.status, 'verified');
      assert.equal(verified.json.verification_method, 'dns');
      assert.ok(dns.queries.includes(`_gateway-challenge.${domain}`));
      assert.equal((await client.call('POST', domain, { body: event })).status, 202);

      // B's pending claim was dropped when A won; B cannot claim the domain again.
      const bProject = await h.console('GET', `/v1/projects/${early.json.id}`, { token: b.token });
      assert.deepEqual(bProject.json.domains, []);
      const again = await createProject(b, [domain]);
      assert.equal(again.status, 409);
      assert.deepEqual(Object.keys(again.json).sort(), ['error', 'message', 'param']);
      assert.equal(again.json.error, 'Conflict');
      assert.equal(again.json.param, 'domains');
      assert.ok(!again.text.includes(a.id) && !again.text.includes(owner.json.id));
      const update = await h.console('POST', `/v1/projects/${early.json.id}`, {
        token: b.token,
        body: { domains: [domain] },
      });
      assert.equal(update.status, 409);
      const dropped = await verify(b, early.json.id, domain);
      assert.equal(dropped.status, 409, dropped.text);
      assert.match(dropped.json.message, /verified by another organization/);
      // Verifying again is a no-op that answers the claim.
      assert.equal((await verify(a, owner.json.id, domain)).json.status, 'verified');
    });

    it('two verifications of one domain for two organizations at once: exactly one wins', async () => {
      const domain = `race-${rnd()}.example.com`;
      const pa = await createProject(a, [domain]);
      const pb = await createProject(b, [domain]);
      // The domain's DNS holds both tokens (say, a shared zone): both checks pass.
      dns.setTxt(`_gateway-challenge.${domain}`, [
        await tokenOf(a, pa.json.id, domain),
        await tokenOf(b, pb.json.id, domain),
      ]);
      // On PostgreSQL the second verification goes through a second instance of the service.
      const { GATEWAY_DATA_DIR: _dir, DATABASE_URL: _url, DATABASE_SCHEMA: _schema, ...env } = h.env;
      const other = store === 'postgres' ? await startHarness({ store, schema: h.schema!, env }) : undefined;
      try {
        const [ra, rb] = await Promise.all([
          verify(a, pa.json.id, domain, { method: 'dns' }),
          (other ?? h).console('POST', `/v1/projects/${pb.json.id}/domains/${domain}/verify`, {
            token: b.token,
            body: { method: 'dns' },
          }),
        ]);
        assert.deepEqual([ra.status, rb.status].sort(), [200, 409], `${ra.text} ${rb.text}`);
        const verified = await h.running.store.db
          .selectFrom('project_domains')
          .select(['organization_id'])
          .where('domain', '=', domain)
          .where('verified_at', 'is not', null)
          .execute();
        assert.equal(verified.length, 1);
        assert.equal(verified[0]!.organization_id, ra.status === 200 ? a.id : b.id);
      } finally {
        await other?.stop();
      }
    });

    it('a verification pointing at an internal address is refused without revealing the address', async () => {
      const internal = `intranet-${rnd()}.example.com`;
      const loopback = `loop-${rnd()}.example.com`;
      dns.setA(internal, ['10.20.30.40']);
      dns.setA(loopback, ['127.0.0.1']);
      site.answer(loopback, { status: 200, body: 'placeholder' });
      const p = await createProject(a, [internal, loopback]);
      assert.equal(p.status, 201, p.text);
      site.answer(loopback, { status: 200, body: await tokenOf(a, p.json.id, loopback) });
      const before = site.requests.length;
      for (const domain of [internal, loopback]) {
        const refused = await verify(a, p.json.id, domain, { method: 'http' });
        assert.equal(refused.status, 422, refused.text);
        assert.match(refused.json.message, /private or reserved address/);
        const withoutDomain = refused.text.split(domain).join('<domain>');
        for (const address of ['10.20.30.40', '127.0.0.1', '10.', '127.'])
          assert.ok(!withoutDomain.includes(address), `${refused.text} reveals ${address}`);
      }
      assert.equal(site.requests.length, before, 'the guard let a request through');
      assert.equal((await client.call('POST', loopback, { body: event })).status, 404);
    });

    it('local and test names are refused in production mode', async () => {
      for (const domain of ['localhost', `app-${rnd()}.localhost`, `shop-${rnd()}.test`, '127.0.0.1']) {
        const refused = await createProject(a, [`ok-${rnd()}.example.com`, domain]);
        assert.equal(refused.status, 400, `${domain}: ${refused.text}`);
        assert.equal(refused.json.param, 'domains[1]');
        assert.match(refused.json.message, /development mode/);
      }
    });
  });
}
