import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { waitFor } from '../support/chat-kit.js';

/**
 * Issue 16, row 9: a client resetting its connection mid-request was logged at warn as
 * "database unavailable" (Node reports the reset as ECONNRESET, a code the store check also
 * knows), sending operators after a database that was fine; and an SSRF-refused webhook URL's
 * refusal named the internal address its host resolved to. A reset is now logged at debug as a
 * client that closed its connection; a refusal names only the host that was given.
 */
interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
}

describe('honest errors: client resets and SSRF refusals (issue 16 row 9)', () => {
  let h: Harness;
  let key: string;
  let token: string;
  let projectId: string;
  const domain = 'resets.example';
  const lines: LogLine[] = [];

  before(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    h = await startHarness({ logger: pino({ level: 'debug' }, sink), env: { GATEWAY_WEBHOOK_ALLOW_PRIVATE: '0' } });
    const org = await h.organization();
    token = org.token;
    key = (await h.createKey(org, { name: 'resets' })).key;
    const project = await h.console('POST', '/v1/projects', {
      token,
      body: { slug: 'resets', name: 'Resets', domains: [domain] },
    });
    assert.equal(project.status, 201, project.text);
    projectId = project.json.id;
  });
  after(async () => h.stop());

  /** Opens TLS, sends the head and part of a declared body, and drops the connection. */
  async function resetMidBody(baseUrl: string, path: string, headers: Record<string, string>): Promise<void> {
    const url = new URL(baseUrl);
    await new Promise<void>((resolve, reject) => {
      const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: h.ca, servername: 'localhost' });
      socket.on('error', () => undefined);
      socket.once('secureConnect', () => {
        const head = Object.entries({ 'content-type': 'application/json', 'content-length': '2000', ...headers })
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('');
        socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{"model":"local/echo","messages":[`, (error) => {
          if (error) return reject(error);
          // Let the server start reading the body, then drop the connection.
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 100);
        });
      });
    });
  }

  it('a client that resets mid-body is logged at debug as a client reset, on every listener, never as a database failure', async () => {
    const targets: Array<[string, string, Record<string, string>]> = [
      [h.running.urls.gateway, '/v1/chat/completions', { host: 'localhost', authorization: `Bearer ${key}` }],
      [h.running.urls.gateway, '/v1/messages', { host: 'localhost', 'x-api-key': key }],
      [h.running.urls.gateway, '/v1/responses', { host: 'localhost', authorization: `Bearer ${key}` }],
      [h.running.urls.console, '/v1/projects', { host: 'localhost', authorization: `Bearer ${token}` }],
      [h.running.urls.collector, '/_gateway/event', { host: domain }],
    ];
    for (const [base, path, headers] of targets) {
      const before = lines.length;
      await resetMidBody(base, path, headers);
      const seen = await waitFor(
        () => {
          const fresh = lines.slice(before);
          return fresh.some((l) => /client closed the connection/.test(l.msg)) ? fresh : undefined;
        },
        { what: `the log line of the reset on ${path}` },
      );
      const reset = seen.find((l) => /client closed the connection/.test(l.msg))!;
      assert.equal(reset.level, 20, `${path}: logged at debug`);
      for (const line of seen) {
        assert.doesNotMatch(line.msg, /database/i, `${path}: ${JSON.stringify(line)}`);
        assert.ok(line.level < 40, `${path}: a reset is no warning or error: ${JSON.stringify(line)}`);
      }
    }
    assert.ok(!lines.some((l) => /database unavailable/.test(l.msg)), 'nothing was logged as a database failure');
    // The service goes on answering.
    assert.equal((await h.gateway('GET', '/v1/models', { token: key })).status, 200);
  });

  it('an SSRF refusal names the host given, never the internal address it resolves to', async () => {
    for (const url of ['https://localhost/hook', 'https://localhost:8443/hook', 'https://10.1.2.3/hook']) {
      const result = await h.console('POST', `/v1/projects/${projectId}/components`, {
        token,
        body: { component_slug: 'gateway/webhook', settings: { url } },
      });
      assert.equal(result.status, 400, `${url}: ${result.text}`);
      assert.equal(result.json.param, 'settings.url');
      assert.match(result.json.message, /private or reserved address/);
      for (const address of ['127.0.0.1', '::1', '10.1.2.3'])
        assert.ok(!result.json.message.includes(address), `${url}: the refusal reveals ${address}: ${result.text}`);
    }
  });
});
