import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TLSSocket } from 'node:tls';
import { sseData, streamedText, waitFor } from '../support/chat-kit.js';
import { T, startDisciplined } from './connection-discipline.js';
import { CLOSED_WITHIN, IdleFlood, captureClientHello, outcomeOf, rawTls } from './raw-sockets.js';
import { suiteFixture } from '../support/suite-fixture.js';

/** Connection floods against the real service over loopback (issue 16, row 2): caps, pacing, what must not be cut. */
describe('connection discipline on every listener: caps, floods and slow streams', () => {
  const env = suiteFixture(startDisciplined);

  it('refuses the connection beyond the per-address cap at once, while other clients are served', async () => {
    const before = await env.metric('gateway_connections_refused_total', { surface: 'gateway', reason: 'address_cap' });
    // Eight connections from 127.0.0.4, each holding a request whose upstream never answers: no
    // timeout applies to a request being answered, so they stay open as long as the test needs.
    const held = await Promise.all(
      Array.from({ length: T.perAddress }, async () => {
        const socket = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.4');
        const body = JSON.stringify({ model: 'test/hanging', messages: [{ role: 'user', content: 'hold' }] });
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${env.key}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
        return socket;
      }),
    );
    try {
      await waitFor(() => env.hanging.requests.length >= T.perAddress, { timeoutMs: 10_000, what: 'held requests' });
      const started = performance.now();
      const refused = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.4').then(
        (socket) => {
          socket.destroy();
          return undefined;
        },
        (error: NodeJS.ErrnoException) => ({ code: error.code, elapsedMs: performance.now() - started }),
      );
      assert.ok(refused, `connection ${T.perAddress + 1} from one address completed its TLS handshake`);
      assert.ok(['ECONNRESET', 'EPIPE'].includes(refused.code ?? ''), `refused with ${refused.code}`);

      // Another address, and the harness's own client, are served meanwhile.
      const other = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.5');
      const answer = outcomeOf(other);
      other.write(
        `GET /v1/models HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${env.key}\r\nConnection: close\r\n\r\n`,
      );
      assert.match((await answer).text, /^HTTP\/1\.1 200 /);
      assert.equal((await env.h.gateway('GET', '/v1/models', { token: env.key })).status, 200);

      const after = await env.metric('gateway_connections_refused_total', {
        surface: 'gateway',
        reason: 'address_cap',
      });
      assert.equal(after - before, 1);
    } finally {
      for (const socket of held) socket.destroy();
    }
    // The slots are given back when those connections close.
    await waitFor(
      async () => {
        try {
          const socket = await rawTls(env.h.running.urls.gateway, env.h.ca, '127.0.0.4');
          socket.destroy();
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 5_000, what: 'a connection from 127.0.0.4 to be admitted again' },
    );
  });

  it('serves a normal client while hundreds of idle and half-open connections are held, and closes them all', async () => {
    const flood = new IdleFlood(env.h.running.urls.gateway, env.h.ca, await captureClientHello());
    flood.start(300);
    try {
      // Connections the service has already cut are being replaced: most, not all, are open at once.
      await waitFor(() => flood.open.size >= 240, { timeoutMs: 20_000, what: '240 of 300 idle connections open' });
      const models = await env.h.gateway('GET', '/v1/models', { token: env.key });
      const heldMeanwhile = flood.open.size;
      assert.equal(models.status, 200);
      const chat = await env.h.gateway('POST', '/v1/chat/completions', {
        token: env.key,
        body: { model: 'local/echo', messages: [{ role: 'user', content: 'still there?' }] },
      });
      assert.equal(chat.status, 200);
      assert.equal(chat.json.choices[0].message.content, 'Echo: still there?');
      assert.ok(heldMeanwhile >= 150, `only ${heldMeanwhile} idle connections were open when the client was answered`);
    } finally {
      flood.stop();
    }
    // No new ones from here: every connection still open is closed by the service itself.
    await waitFor(() => flood.open.size === 0, {
      timeoutMs: CLOSED_WITHIN,
      what: `the service to close the last ${flood.open.size} idle connections`,
    });
    assert.ok(flood.closedByService >= 300, `${flood.closedByService} closed by the service`);
  });

  it('a burst of new TLS connections on every listener: every handshake is paced, none dropped, and another client is served meanwhile', async () => {
    const timedOutBefore = await env.metric('gateway_connections_timed_out_total', {
      surface: 'gateway',
      phase: 'handshake',
    });
    const surfaces = ['gateway', 'console', 'collector'] as const;
    // 60 at once, 5 a source address (under the per-address cap): each handshake waits its turn
    // in the instance's pacer, well within the handshake deadline.
    const burst = Array.from({ length: 60 }, (_, i) =>
      rawTls(env.h.running.urls[surfaces[i % 3]!]!, env.h.ca, `127.0.8.${1 + Math.floor(i / 5)}`).then(
        (socket) => socket,
        (error: Error) => error,
      ),
    );
    const models = await env.h.gateway('GET', '/v1/models', { token: env.key });
    assert.equal(models.status, 200);
    const sockets = await Promise.all(burst);
    const failed = sockets.filter((s): s is Error => s instanceof Error);
    assert.deepEqual(
      failed.map((e) => e.message),
      [],
      'every connection of the burst completed its handshake',
    );
    for (const socket of sockets as TLSSocket[]) socket.destroy();
    const timedOutAfter = await env.metric('gateway_connections_timed_out_total', {
      surface: 'gateway',
      phase: 'handshake',
    });
    assert.equal(timedOutAfter - timedOutBefore, 0);
  });

  it('does not cut a chat stream whose chunks come 1.5 × the idle timeout apart', async () => {
    const gapMs = Math.max(T.idleMs, T.bodyMs) * 1.5;
    env.slow.setScenario({ textChunks: ['Slow', ' and', ' steady'], chunkDelayMs: gapMs });
    const started = performance.now();
    const result = await env.h.gateway('POST', '/v1/chat/completions', {
      token: env.key,
      body: { model: 'test/slow', stream: true, messages: [{ role: 'user', content: 'take your time' }] },
    });
    const elapsedMs = performance.now() - started;
    assert.equal(result.status, 200);
    const events = sseData(result.text);
    assert.equal(streamedText(events), 'Slow and steady');
    assert.equal(events.at(-1), '[DONE]');
    assert.ok(elapsedMs >= gapMs * 5, `the stream lasted ${elapsedMs} ms: the mock did not pause`);
  });
});
