import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { setTimeout as delay } from 'node:timers/promises';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text.js';

/**
 * The address penalty box against the real service over loopback (src/server/address-penalties.ts):
 * an address whose connections keep missing the handshake or header deadline without completing
 * a request is refused on accept for a cool-down, while other addresses, and clients that
 * complete requests, are served as before. Deadlines and the cool-down are scaled down; the
 * client sockets bind to other loopback addresses (127.0.0.0/8) to act as other clients.
 */
const T = { deadlineMs: 400, keepAliveMs: 300, cuts: 3, cooldownMs: 2_500 };
const TRUSTED_PROXY = '127.0.0.25';

interface Ended {
  text: string;
  error: string | undefined;
}

/** What the server sends until it closes the socket. */
function ended(socket: Socket): Promise<Ended> {
  let text = '';
  let error: string | undefined;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  return new Promise((resolve) => socket.once('close', () => resolve({ text, error })));
}

describe('address penalty box (slowloris from one address)', () => {
  let h: Harness;
  let key: string;

  before(async () => {
    h = await startHarness({
      env: {
        GATEWAY_HANDSHAKE_TIMEOUT_MS: String(T.deadlineMs),
        GATEWAY_HEADERS_TIMEOUT_MS: String(T.deadlineMs),
        GATEWAY_KEEP_ALIVE_TIMEOUT_MS: String(T.keepAliveMs),
        GATEWAY_ADDRESS_PENALTY_CUTS: String(T.cuts),
        GATEWAY_ADDRESS_PENALTY_WINDOW_MS: '60000',
        GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS: String(T.cooldownMs),
        GATEWAY_TRUSTED_PROXIES: TRUSTED_PROXY,
        METRICS_PUBLIC: 'true',
      },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(() => h.stop());

  const gateway = () => new URL(h.running.urls.gateway);

  /** A TLS connection from `localAddress`; rejects when the service resets it before the handshake ends. */
  function tlsFrom(localAddress: string): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      const { hostname, port } = gateway();
      // Node hands `localAddress` to the TCP connect; its TLS options type leaves it out.
      const options = { host: hostname, port: Number(port), localAddress, ca: h.ca, servername: 'localhost' };
      const socket = tlsConnect(options as ConnectionOptions, () => resolve(socket));
      socket.once('error', reject);
      socket.once('close', () => reject(new Error('closed before the TLS handshake ended')));
    });
  }

  /** GET /v1/models on `socket`; resolves with the status of the answer. */
  function models(socket: TLSSocket): Promise<number> {
    return new Promise((resolve) => {
      socket.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('latin1').split(' ')[1])));
      socket.write(`GET /v1/models HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    });
  }

  async function refusedByPenalty(): Promise<number> {
    const result = await h.gateway('GET', '/metrics');
    return sampleValue(parsePrometheusText(result.text), 'gateway_connections_refused_total', {
      surface: 'gateway',
      reason: 'address_penalty',
    });
  }

  it('refuses an address whose connections keep missing deadlines, while another keeps being served, until the cool-down ends', async () => {
    const attacker = '127.0.0.21';
    const refusedBefore = await refusedByPenalty();
    // Three ways to miss a deadline: headers a byte at a time, a TLS connection that sends
    // nothing, a TCP connection that never starts its handshake.
    const dribbling = await tlsFrom(attacker);
    const dribbled = ended(dribbling);
    const head = 'GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(100);
    let i = 0;
    const dribble = setInterval(() => dribbling.destroyed || dribbling.write(head[i++ % head.length]!), 50);
    const silent = ended(await tlsFrom(attacker));
    const { hostname, port } = gateway();
    const tcp = tcpConnect({ host: hostname, port: Number(port), localAddress: attacker });
    const [headers, idle, handshake] = await Promise.all([dribbled, silent, ended(tcp)]);
    clearInterval(dribble);
    assert.match(headers.text, /^HTTP\/1\.1 408 /, 'dribbled headers: cut at the header deadline');
    assert.match(idle.text, /^HTTP\/1\.1 408 /, 'silent TLS connection: cut at the header deadline');
    assert.equal(handshake.text, '', 'silent TCP connection: cut at the handshake deadline');
    const boxedAt = performance.now();

    // The next connection from that address is reset on accept: no handshake, no answer.
    await assert.rejects(tlsFrom(attacker), 'a boxed address gets no TLS connection');
    assert.equal(await refusedByPenalty(), refusedBefore + 1);

    // Another address is served meanwhile.
    const other = await tlsFrom('127.0.0.22');
    assert.equal(await models(other), 200);
    other.destroy();

    // After the cool-down the address is served again.
    await delay(Math.max(0, T.cooldownMs - (performance.now() - boxedAt)) + 200);
    const back = await tlsFrom(attacker);
    assert.equal(await models(back), 200);
    back.destroy();
  });

  it('never boxes a keep-alive client whose connections the service closes when idle', async () => {
    const client = '127.0.0.23';
    // Twice the threshold: each connection answers a request, idles past the keep-alive
    // timeout and is closed by the service.
    for (let n = 0; n < 2 * T.cuts; n++) {
      const socket = await tlsFrom(client);
      const closed = ended(socket);
      assert.equal(await models(socket), 200, `connection ${n + 1}`);
      await closed;
    }
    const last = await tlsFrom(client);
    assert.equal(await models(last), 200);
    last.destroy();
  });

  it('never boxes a trusted proxy, whose connections carry many clients, however many of them are cut', async () => {
    const { hostname, port } = gateway();
    const silent = Array.from({ length: 2 * T.cuts }, () =>
      ended(tcpConnect({ host: hostname, port: Number(port), localAddress: TRUSTED_PROXY })),
    );
    for (const cut of await Promise.all(silent)) assert.equal(cut.text, '', 'cut at the handshake deadline');
    const next = await tlsFrom(TRUSTED_PROXY);
    assert.equal(await models(next), 200);
    next.destroy();
  });

  it('does not count a header deadline missed on a connection that had completed a request', async () => {
    const client = '127.0.0.24';
    for (let n = 0; n < 2 * T.cuts; n++) {
      const socket = await tlsFrom(client);
      const closed = ended(socket);
      assert.equal(await models(socket), 200, `connection ${n + 1}`);
      // The next request stalls halfway through its headers (a client's network hiccup).
      socket.write('GET /v1/models HTTP/1.1\r\nHost: local');
      assert.match((await closed).text, /408 /);
    }
    const last = await tlsFrom(client);
    assert.equal(await models(last), 200);
    last.destroy();
  });
});
