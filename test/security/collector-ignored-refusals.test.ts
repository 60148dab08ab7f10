import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { body, newProject, startCollectorService } from './collector-flood-kit.js';
import { suiteFixture } from '../support/suite-fixture.js';

/**
 * Issue 16, row 3 (bench/attack, flood): a client that keeps posting while its address is told
 * to wait costs the service a TLS record, an HTTP parse and an answer per request. Past
 * GATEWAY_ADDRESS_PENALTY_IGNORED_REFUSALS such requests its address goes into the penalty box
 * (src/server/address-penalties.ts): the refusal that boxes it closes its connection, new
 * connections from it are refused on accept, and other addresses are served as before.
 */
const IGNORED = 5;
const BURST = 3;

describe('collector: an address that ignores its 429s is boxed', () => {
  const env = suiteFixture(() =>
    startCollectorService('sqlite', {
      GATEWAY_COLLECTOR_ADDRESS_RATE: '0',
      GATEWAY_COLLECTOR_ADDRESS_BURST: String(BURST),
      GATEWAY_COLLECTOR_PROJECT_RATE: '0',
      GATEWAY_COLLECTOR_PROJECT_BURST: '1000',
      GATEWAY_COLLECTOR_BURST_WINDOW_S: '3600',
      GATEWAY_ADDRESS_PENALTY_IGNORED_REFUSALS: String(IGNORED),
      GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS: '60000',
    }),
  );

  /** Whether a TLS connection from `localAddress` to the collector completes its handshake. */
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

  it('closes its connection at the n-th ignored refusal and refuses its new connections; another address is served', async () => {
    const project = await newProject(env.h, env.token);
    const attacker = env.from('127.0.0.7');
    const statuses: number[] = [];
    const closing: Array<string | undefined> = [];
    for (let i = 0; i < BURST + 1 + IGNORED; i++) {
      const answer = await attacker.call('POST', project.domain, { body: body() });
      statuses.push(answer.status);
      closing.push(answer.headers['connection'] as string | undefined);
    }
    assert.deepEqual(statuses, [...Array(BURST).fill(202), ...Array(1 + IGNORED).fill(429)]);
    // The budget's own refusal and the ignored ones before the n-th keep the connection.
    assert.deepEqual(
      closing.slice(0, -1).map((c) => c === 'close'),
      Array(BURST + IGNORED).fill(false),
    );
    assert.equal(closing.at(-1), 'close', 'the refusal that boxes the address closes its connection');

    assert.equal(await handshakes('127.0.0.7'), false, 'new connections from the boxed address are refused');
    assert.equal(await handshakes('127.0.0.8'), true, 'another address connects');
    const neighbour = env.from('127.0.0.8');
    assert.equal((await neighbour.call('POST', project.domain, { body: body() })).status, 202);
  });
});
