import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { Agent } from 'undici';
import { body, newProject, startCollectorService } from './collector-flood-kit.js';
import { httpCaller, type RequestInit } from '../support/gateway-harness.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * Issue 27, row 5: a browser floods the collector from one address and ignores its 429s, which
 * boxes that address (src/server/address-penalties.ts); then a coding agent at the same address
 * (an office NAT) calls the gateway with a valid key. The box is the collector listener's own:
 * the gateway and the console go on serving the address, on new connections too.
 */
const IGNORED = 5;
const BURST = 3;
const OFFICE = '127.0.0.1';

describe('penalty box per listener: a collector offender is refused on the collector only', () => {
  const env = suiteFixture(() =>
    startCollectorService('sqlite', {
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

  /** Whether a TLS connection from `localAddress` to `url` completes its handshake. */
  function handshakes(url: string, localAddress: string): Promise<boolean> {
    const { hostname, port } = new URL(url);
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

  /** One request on a connection of its own from `localAddress`; status 0 when the connection is refused. */
  async function freshCall(base: string, path: string, init: RequestInit): Promise<number> {
    const dispatcher = new Agent({ connect: { ca: env.h.ca }, localAddress: OFFICE });
    try {
      return (await httpCaller(dispatcher)(base, 'GET', path, init)).status;
    } catch {
      return 0;
    } finally {
      await dispatcher.close();
    }
  }

  it('serves every authenticated gateway and console request from an address boxed on the collector', async () => {
    const org = await env.h.organization();
    const { key } = await env.h.createKey(org);
    const project = await newProject(env.h, env.token);
    const browser = env.from(OFFICE);
    let last;
    for (let i = 0; i < BURST + 1 + IGNORED; i++) last = await browser.call('POST', project.domain, { body: body() });
    assert.equal(last?.status, 429);
    assert.equal(last?.headers['connection'], 'close', 'the flood put the address in the collector’s box');
    assert.equal(await handshakes(env.h.running.urls.collector, OFFICE), false, 'the collector refuses the address');

    const gatewayStatuses: number[] = [];
    for (let i = 0; i < 10; i++)
      gatewayStatuses.push(await freshCall(env.h.running.urls.gateway, '/v1/models', { token: key }));
    assert.deepEqual(gatewayStatuses, Array(10).fill(200), 'GET /v1/models with a valid key, each on a new connection');
    assert.equal(await freshCall(env.h.running.urls.console, '/v1/projects', { token: org.token }), 200);

    // Scraped from the gateway listener: the collector's own refuses this address.
    const scraped = parsePrometheusText((await env.h.gateway('GET', '/metrics')).text);
    const refusedOnAccept = (surface: string) =>
      sampleValue(scraped, 'gateway_connections_refused_total', { surface, reason: 'address_penalty' });
    assert.equal(refusedOnAccept('gateway'), 0);
    assert.equal(refusedOnAccept('console'), 0);
    assert.ok(refusedOnAccept('collector') >= 1);
  });
});
