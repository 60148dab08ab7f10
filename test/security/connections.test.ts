import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { waitFor } from '../support/chat-kit.js';
import { T, startDisciplined } from './connection-discipline.js';
import { CLOSED_WITHIN, captureClientHello, outcomeOf, rawTcp, rawTls, watch } from './raw-sockets.js';
import { suiteFixture } from '../support/suite-fixture.js';

/** Slowloris against the real service over loopback (issue 16, row 2): every deadline of a connection. */
describe('connection discipline on every listener: deadlines (slowloris)', () => {
  const env = suiteFixture(startDisciplined);

  it('cuts headers sent one byte at a time after the header timeout, with a 408, on every listener', async () => {
    const before = await env.metric('gateway_connections_timed_out_total', { surface: 'metrics', phase: 'headers' });
    const results = await Promise.all(
      (['gateway', 'console', 'collector', 'metrics'] as const).map(async (surface) => {
        const socket = await rawTls(env.h.running.urls[surface]!, env.h.ca, '127.0.0.3');
        const started = performance.now();
        const result = outcomeOf(socket, started);
        const head = `GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${'a'.repeat(1000)}`;
        let i = 0;
        const dribble = setInterval(() => {
          if (socket.destroyed || i >= head.length) clearInterval(dribble);
          else socket.write(head[i++]!);
        }, 50);
        const outcome = await result;
        clearInterval(dribble);
        return { surface, outcome, sent: i };
      }),
    );
    for (const { surface, outcome, sent } of results) {
      assert.ok(outcome.closed, `${surface}: still open after ${CLOSED_WITHIN} ms of dribbled headers (${sent} bytes)`);
      assert.ok(outcome.elapsedMs >= T.headersMs * 0.9, `${surface}: cut after ${outcome.elapsedMs} ms`);
      assert.match(outcome.text, /^HTTP\/1\.1 408 /, `${surface}: ${outcome.text.slice(0, 200)}`);
    }
    const gatewayAnswer = JSON.parse(results[0]!.outcome.text.split('\r\n\r\n')[1]!);
    assert.equal(typeof gatewayAnswer.error.message, 'string', 'the gateway answers in its own error envelope');
    const after = await env.metric('gateway_connections_timed_out_total', { surface: 'metrics', phase: 'headers' });
    assert.equal(after - before, 1);
  });

  it('closes a TLS connection that completes its handshake and never sends a request', async () => {
    const socket = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.3');
    const outcome = await outcomeOf(socket);
    assert.ok(outcome.closed, 'still open');
    assert.ok(outcome.elapsedMs >= T.headersMs * 0.9, `closed after ${outcome.elapsedMs} ms`);
  });

  it('closes a TCP connection that sends nothing after the handshake timeout', async () => {
    const before = await env.metric('gateway_connections_timed_out_total', {
      surface: 'collector',
      phase: 'handshake',
    });
    const started = performance.now();
    const socket = await rawTcp(env.h.running.urls.collector, '127.0.0.3');
    const outcome = await outcomeOf(socket, started);
    assert.ok(outcome.closed, 'still open');
    assert.ok(outcome.elapsedMs >= T.handshakeMs * 0.9, `closed after ${outcome.elapsedMs} ms`);
    assert.equal(outcome.text, '');
    const after = await env.metric('gateway_connections_timed_out_total', { surface: 'collector', phase: 'handshake' });
    assert.equal(after - before, 1);
  });

  it('closes a connection that starts the TLS handshake and never finishes it', async () => {
    const hello = await captureClientHello();
    const sockets = await Promise.all([
      rawTcp(env.h.running.urls.gateway, '127.0.0.3'),
      rawTcp(env.h.running.urls.console, '127.0.0.3'),
    ]);
    const started = performance.now();
    const outcomes = sockets.map((socket) => outcomeOf(socket, started));
    // One sends half its ClientHello, the other dribbles it a byte every 100 ms.
    sockets[0]!.write(hello.subarray(0, hello.length >> 1));
    let i = 0;
    const dribble = setInterval(() => {
      if (sockets[1]!.destroyed || i >= hello.length - 1) clearInterval(dribble);
      else sockets[1]!.write(hello.subarray(i, ++i));
    }, 100);
    const [half, dribbled] = await Promise.all(outcomes);
    clearInterval(dribble);
    assert.ok(half!.closed, 'half a ClientHello: still open');
    assert.ok(dribbled!.closed, `a ClientHello dribbled (${i} of ${hello.length} bytes): still open`);
    for (const outcome of [half!, dribbled!]) assert.ok(outcome.elapsedMs >= T.handshakeMs * 0.9);
  });

  it('closes an idle keep-alive connection after the idle timeout, not before', async () => {
    const socket = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.3');
    const answered = new Promise<number>((resolve) => socket.once('data', () => resolve(performance.now())));
    const result = outcomeOf(socket);
    socket.write(`GET /v1/models HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${env.key}\r\n\r\n`);
    const answeredAt = await answered;
    const outcome = await result;
    assert.match(outcome.text, /^HTTP\/1\.1 200 /);
    assert.match(outcome.text, /keep-alive/i);
    assert.ok(outcome.closed, 'the idle connection is still open');
    const idleMs = outcome.endedAt - answeredAt;
    assert.ok(idleMs >= T.idleMs * 0.9, `closed ${idleMs} ms after the answer`);
  });

  describe('request bodies', () => {
    const chatHead = (length: number, auth = true) =>
      'POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      (auth ? `Authorization: Bearer ${env.key}\r\n` : '') +
      `Content-Length: ${length}\r\nConnection: keep-alive\r\n\r\n`;

    it('cuts a body that arrives below the minimum rate with a 408 in the gateway envelope', async () => {
      const before = await env.metric('gateway_connections_timed_out_total', { surface: 'gateway', phase: 'body' });
      const socket = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.6');
      const result = outcomeOf(socket);
      socket.write(chatHead(5_000));
      // 20 bytes every 100 ms: 200 B/s, a tenth of the minimum rate.
      const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(' '.repeat(20))), 100);
      const outcome = await result;
      clearInterval(drip);
      assert.ok(outcome.closed, 'still open');
      assert.match(outcome.text, /^HTTP\/1\.1 408 /, outcome.text.slice(0, 300));
      assert.match(outcome.text, /connection: close/i);
      const answer = JSON.parse(outcome.text.split('\r\n\r\n')[1]!);
      assert.match(answer.error.message, /too slowly/);
      const after = await env.metric('gateway_connections_timed_out_total', { surface: 'gateway', phase: 'body' });
      assert.equal(after - before, 1);
    });

    it('lets a body above the minimum rate take longer than the body timeout', async () => {
      const body = Buffer.from(
        JSON.stringify({
          model: 'local/echo',
          messages: [{ role: 'user', content: 'a slow but steady upload '.repeat(480) }],
        }),
      );
      const socket = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.6');
      const watched = watch(socket, performance.now(), 15_000);
      socket.write(chatHead(body.length));
      // ~1,500 bytes every 250 ms (6 KB/s, three times the minimum): about 2 s in all.
      const started = performance.now();
      for (let offset = 0; offset < body.length; offset += 1_500) {
        socket.write(body.subarray(offset, offset + 1_500));
        await delay(250);
      }
      const sendingMs = performance.now() - started;
      await waitFor(() => /\r\n\r\n\{.*\}$/s.test(watched.text()) || socket.destroyed, {
        timeoutMs: 10_000,
        what: 'the answer',
      });
      socket.end();
      const outcome = await watched.result;
      assert.ok(sendingMs > T.bodyMs * 2, `the upload took only ${sendingMs} ms`);
      assert.match(outcome.text, /^HTTP\/1\.1 200 /, outcome.text.slice(0, 300));
    });

    it('does not let the rest of a slow body hold the connection after an early answer', async () => {
      const socket = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.6');
      const result = outcomeOf(socket);
      socket.write(chatHead(1_000_000, false));
      const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(' '.repeat(20))), 100);
      const outcome = await result;
      clearInterval(drip);
      assert.match(outcome.text, /^HTTP\/1\.1 401 /, outcome.text.slice(0, 200));
      assert.ok(outcome.closed, 'the connection stays open while the unwanted body trickles in');
    });
  });
});
