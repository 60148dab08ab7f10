import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { PRICING, header, parseSse, usageRowOf } from '../support/chat-kit.js';
import { adapters } from '../../src/providers/registry.js';
import type { ProviderAdapter } from '../../src/providers/types.js';
import type { ProviderStreamEvent } from '../../src/canonical/completion.js';

const MODEL = 'acme/buggy';

/** An adapter whose stream breaks with a plain exception (a codec bug), not an UpstreamError. */
const buggyAdapter: ProviderAdapter = {
  kind: 'local',
  complete: () => Promise.reject(new TypeError('not used')),
  stream: () =>
    Promise.resolve(
      (async function* (): AsyncGenerator<ProviderStreamEvent> {
        yield { type: 'delta', content: 'partial ' };
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new TypeError('a codec bug in the middle of a stream');
      })(),
    ),
};

/** Every exception in a stream ends it with the surface's error event, is logged with its stack, and is metered. */
describe('an exception in the middle of a stream', () => {
  let h: Harness;
  let key: string;
  const logs: Array<Record<string, any>> = [];
  const original = adapters.local;

  before(async () => {
    adapters.local = buggyAdapter;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line));
        done();
      },
    });
    h = await startHarness({
      logger: pino({ level: 'error' }, sink),
      config: {
        providers: [{ id: 'buggy', kind: 'local' }],
        models: [{ id: MODEL, providers: [{ provider: 'buggy', model: 'buggy' }], pricing: PRICING }],
      },
    });
    key = (await h.createKey(await h.organization())).key;
  });
  after(async () => {
    adapters.local = original;
    await h.stop();
  });

  const cases = [
    {
      path: '/v1/chat/completions',
      body: { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      lastEvent: (events: ReturnType<typeof parseSse>) => {
        const last = JSON.parse(events.at(-1)!.data);
        assert.equal(last.error.code, 'provider_error');
      },
    },
    {
      path: '/v1/messages',
      body: { model: MODEL, stream: true, max_tokens: 32, messages: [{ role: 'user', content: 'Hi' }] },
      lastEvent: (events: ReturnType<typeof parseSse>) => {
        assert.equal(events.at(-1)!.event, 'error');
        assert.equal(JSON.parse(events.at(-1)!.data).type, 'error');
      },
    },
    {
      path: '/v1/responses',
      body: { model: MODEL, stream: true, input: 'Hi' },
      lastEvent: (events: ReturnType<typeof parseSse>) => {
        assert.equal(events.at(-1)!.event, 'response.failed');
      },
    },
  ];

  for (const c of cases) {
    it(`${c.path}: ends with the surface's error event, logged with its stack, metered once with the error`, async () => {
      logs.length = 0;
      const result = await h.gateway('POST', c.path, { token: key, body: c.body });
      assert.equal(result.status, 200, result.text);
      c.lastEvent(parseSse(result.text));
      const logged = logs.find((l) => l.err?.message === 'a codec bug in the middle of a stream');
      assert.ok(logged, `not logged: ${JSON.stringify(logs).slice(0, 500)}`);
      assert.match(logged.err.stack, /TypeError: a codec bug[\s\S]*stream-failures\.test\.ts/);
      const row = await usageRowOf(h.running.store, header(result, 'x-request-id')!);
      assert.equal(Number(row.status_code), 502);
      assert.equal(row.error_code, 'provider_error');
    });
  }
});
