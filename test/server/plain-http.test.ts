import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startHarness, type Harness } from '../support/gateway-harness.js';

/**
 * A client that forgot the `s` in https:// is told so at once, on every listener, and the
 * connection is closed: never a hang, never a TLS alert it cannot read.
 */
function plainRequest(url: string, payload: string): Promise<{ text: string; elapsedMs: number; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: hostname, port: Number(port) });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, elapsedMs: Date.now() - started, closed: false });
    }, 2000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, elapsedMs: Date.now() - started, closed: true });
    });
    socket.on('connect', () => socket.write(payload));
  });
}

describe('plain HTTP on the HTTPS listeners', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.stop());

  for (const surface of ['gateway', 'console', 'collector'] as const) {
    it(`the ${surface} port answers a plain-HTTP request with a plain-text 400 saying HTTPS is required, within 500 ms, and closes`, async () => {
      const result = await plainRequest(h.running.urls[surface], 'GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.ok(result.closed, 'the connection was not closed');
      assert.ok(result.elapsedMs < 500, `took ${result.elapsedMs} ms`);
      const [head, body] = result.text.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 400 /);
      assert.match(head!, /content-type: text\/plain/i);
      assert.match(head!, /connection: close/i);
      assert.match(body!, /HTTPS/);
      const length = /content-length: (\d+)/i.exec(head!);
      assert.equal(Number(length?.[1]), Buffer.byteLength(body!));
    });
  }

  it('refuses a plain-HTTP POST with a body the same way', async () => {
    const body = JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] });
    const result = await plainRequest(
      h.running.urls.gateway,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    assert.ok(result.closed);
    assert.match(result.text, /^HTTP\/1\.1 400 [\s\S]*HTTPS/);
  });

  it('still serves HTTPS on the same port after refusing plain HTTP', async () => {
    await plainRequest(h.running.urls.gateway, 'GET / HTTP/1.1\r\n\r\n');
    const result = await h.gateway('GET', '/v1/models');
    assert.equal(result.status, 401);
    assert.equal(result.json.error.code, 'unauthorized');
  });
});
