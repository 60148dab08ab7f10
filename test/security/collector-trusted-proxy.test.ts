import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { body, newProject, startCollectorService, type Client } from './collector-flood-kit.js';
import { collectorClient } from '../support/collector-client.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * GATEWAY_TRUSTED_PROXIES (src/server/trusted-proxies.ts, client-penalties.ts): behind a load
 * balancer every client arrives from the balancer's address. With the balancer trusted, the
 * collector's rate budgets and its penalty box count the client its `X-Forwarded-For` names, the
 * one offender is refused request by request, and the balancer's shared connection is never
 * closed or refused for it. The balancer is played by a client bound to its own loopback address
 * that sends everything over one keep-alive connection, adding the hop a proxy adds.
 */
const IGNORED = 5;
const BURST = 3;
const PROXY = '127.0.0.50';
const FLOODER = '198.51.100.7';
const NEIGHBOUR = '198.51.100.8';

describe('collector behind a trusted proxy: limits and penalties apply to the real client', () => {
  const env = suiteFixture(() =>
    startCollectorService('sqlite', {
      GATEWAY_TRUSTED_PROXIES: `10.9.0.0/16, ${PROXY}, 2001:db8::/32`,
      GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
      GATEWAY_COLLECTOR_ADDRESS_BURST: String(BURST),
      GATEWAY_COLLECTOR_PROJECT_RATE: '0',
      GATEWAY_COLLECTOR_PROJECT_BURST: '1000',
      GATEWAY_COLLECTOR_BURST_WINDOW_S: '3600',
      GATEWAY_ADDRESS_PENALTY_IGNORED_REFUSALS: String(IGNORED),
      GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS: '60000',
      METRICS_PUBLIC: 'true',
    }),
  );

  /** The proxy: one connection from PROXY, every request forwarded for `client`. */
  function throughProxy(proxy: Client, domain: string, forwardedFor: string) {
    return proxy.call('POST', domain, { body: body(), headers: { 'x-forwarded-for': forwardedFor } });
  }

  function handshakes(localAddress: string): Promise<boolean> {
    const { hostname, port } = new URL(env.h.running.urls.collector);
    return new Promise((resolve) => {
      const options = { host: hostname, port: Number(port), localAddress, ca: env.h.ca, servername: 'localhost' };
      const socket = tlsConnect(options as ConnectionOptions, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
      socket.on('close', () => resolve(false));
    });
  }

  it('limits and boxes only the flooding client of two behind one proxy, on the proxy’s open connection', async () => {
    const project = await newProject(env.h, env.token);
    const proxy = collectorClient(env.h.running.urls.collector, env.h.ca, { localAddress: PROXY, connections: 1 });
    try {
      const flood = [];
      for (let i = 0; i < BURST + 1 + IGNORED + 1; i++) flood.push(await throughProxy(proxy, project.domain, FLOODER));
      assert.deepEqual(
        flood.map((a) => a.status),
        [...Array(BURST).fill(202), ...Array(1 + IGNORED + 1).fill(429)],
      );
      assert.ok(
        flood.every((a) => a.headers['connection'] !== 'close'),
        'the proxy’s connection is never closed for one of its clients',
      );
      const boxed = flood.at(-1)!;
      assert.match(boxed.json.message, /kept sending while told to wait/);
      // The cool-down's 60 s, not the event budget's hour.
      const retryAfter = Number(boxed.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After is the rest of the cool-down, got ${retryAfter}`);

      // A client prepending its neighbour's address is still the rightmost hop the proxy added.
      const spoofed = await throughProxy(proxy, project.domain, `${NEIGHBOUR}, ${FLOODER}`);
      assert.equal(spoofed.status, 429);

      // The neighbour behind the same proxy, on the same connection, has its own budget.
      for (let i = 0; i < BURST; i++)
        assert.equal((await throughProxy(proxy, project.domain, NEIGHBOUR)).status, 202, `neighbour request ${i + 1}`);
      assert.equal(await handshakes(PROXY), true, 'the proxy’s new connections are accepted');

      const scraped = parsePrometheusText((await env.h.gateway('GET', '/metrics')).text);
      assert.equal(
        sampleValue(scraped, 'gateway_connections_refused_total', { surface: 'collector', reason: 'address_penalty' }),
        0,
      );
      assert.ok(
        sampleValue(scraped, 'gateway_collector_requests_rejected_total', { reason: 'address_penalty' }) >= 2,
        'the boxed client is refused per request',
      );
    } finally {
      await proxy.close();
    }
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const project = await newProject(env.h, env.token);
    const direct = env.from('127.0.0.51');
    const statuses = [];
    // A fresh forwarded address every request: each would have a budget of its own if believed.
    for (let i = 0; i < BURST + 2; i++)
      statuses.push(
        (await direct.call('POST', project.domain, { body: body(), headers: { 'x-forwarded-for': `203.0.113.${i}` } }))
          .status,
      );
    assert.deepEqual(statuses, [...Array(BURST).fill(202), 429, 429]);
  });
});
