import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { openRawCall, readRawText } from '../../../src/providers/http/raw-call.js';
import { UpstreamError, type UpstreamTarget } from '../../../src/providers/types.js';

/** Answers with the raw header lines named by the path: `/none`, `/identity`, `/gzip-mixed-case`. */
function encodingServer(): Server {
  return createServer((req, res) => {
    const body = '{"ok":true}';
    const headers: string[] = ['Content-Type', 'application/json', 'Content-Length', String(body.length)];
    if (req.url === '/identity') headers.push('Content-Encoding', 'identity');
    if (req.url === '/gzip-mixed-case') headers.push('CONTENT-Encoding', 'GZip');
    res.writeHead(200, headers);
    res.end(body);
  });
}

const TIMEOUTS = { connectMs: 2_000, firstByteMs: 2_000, betweenChunksMs: 2_000 };

describe('raw upstream calls and content-encoding', () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = encodingServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = (path: string) =>
    openRawCall(
      { url: `${base}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      { providerId: 'p', kind: 'openai', baseUrl: base, apiKey: undefined, upstreamModel: 'm' } as UpstreamTarget,
      { signal: new AbortController().signal, timeouts: TIMEOUTS },
      (status, text) => new UpstreamError(`HTTP ${status}: ${text}`, { status, retryable: false }),
    );

  it('reads an answer without content-encoding, or with identity', async () => {
    for (const path of ['/none', '/identity']) assert.equal(await readRawText(await call(path)), '{"ok":true}');
  });

  it('refuses an encoded answer whatever the case of its header name and value', async () => {
    await assert.rejects(call('/gzip-mixed-case'), (error: unknown) => {
      assert.ok(error instanceof UpstreamError);
      assert.match(error.message, /content-encoding "GZip"/);
      return true;
    });
  });
});
