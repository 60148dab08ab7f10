import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { closeOffloadPool, offloadThreads } from '../../src/offload/index.js';

/**
 * A request whose Content-Length says its body is big enough for a pool thread starts the thread
 * when its headers arrive, so the thread's start overlaps the upload (issue 16: the first big
 * count after a start). The bodies here are not JSON: the route answers 400 without counting
 * anything, so only the warm-up can have started a thread.
 */
describe('pool thread started ahead of a big body (gateway/warm-offload.ts)', () => {
  let h: Harness;
  let key: string;
  const big = '{'.repeat(4096);
  const post = (body: string, token?: string) =>
    h.gateway('POST', '/v1/count_tokens', { token, rawBody: body, headers: { 'content-type': 'application/json' } });

  before(async () => {
    h = await startHarness({ env: { GATEWAY_OFFLOAD_MIN_CHARS: '2048' } });
    key = (await h.createKey(await h.organization())).key;
  });
  beforeEach(() => closeOffloadPool());
  after(async () => {
    await closeOffloadPool();
    await h.stop();
  });

  it('an authenticated request announcing at least GATEWAY_OFFLOAD_MIN_CHARS bytes starts one thread', async () => {
    assert.equal(offloadThreads(), 0);
    const res = await post(big, key);
    assert.equal(res.status, 400, res.text);
    assert.equal(offloadThreads(), 1);
    assert.equal((await post(big, key)).status, 400);
    assert.equal(offloadThreads(), 1, 'a second big request starts no second thread');
  });

  it('a smaller body, or a client without a valid key, starts none', async () => {
    assert.equal((await post('{'.repeat(100), key)).status, 400);
    assert.equal((await post(big)).status, 401);
    assert.equal((await post(big, 'gw-not-a-key')).status, 401);
    assert.equal(offloadThreads(), 0);
  });
});
