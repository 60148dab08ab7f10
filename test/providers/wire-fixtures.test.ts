/**
 * The second half of the provider conformance suite: every HTTP adapter reads its provider's
 * wire fixtures (src/providers/<provider>/__fixtures__/): `<case>.sse` streams and `<case>.json`
 * answers, byte for byte as the provider frames them, each with `<case>.expected.json`, the
 * provider-neutral result. Served from a loopback server in small TCP writes (split inside
 * lines and multi-byte characters), so framing, usage with cached tokens, parallel tool calls,
 * stop reasons and in-stream errors are checked the way they arrive. Adding a case is adding
 * two files; adding a provider is its folder and one entry in conformance-providers.ts.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { UpstreamError, type UpstreamTarget } from '../../src/providers/types.js';
import type { FinishReason, TokenUsage } from '../../src/canonical/completion.js';
import { API_KEY, PROVIDERS } from './conformance-providers.js';
import { callOptions, chat, collect } from './helpers.js';

interface Expected {
  text?: string | null;
  toolCalls?: Array<{ id?: string; name: string; arguments: string }>;
  finishReason?: FinishReason;
  usage?: TokenUsage;
  error?: { kind: string; retryable?: boolean };
}

/** Bytes per TCP write: small and odd, so writes split SSE lines and UTF-8 sequences. */
const WRITE_BYTES = 7;

function fixturesOf(provider: string): { dir: string; cases: string[] } {
  const dir = new URL(`../../src/providers/${provider}/__fixtures__/`, import.meta.url).pathname;
  const cases = readdirSync(dir).filter(
    (f) => (f.endsWith('.sse') || f.endsWith('.json')) && !f.endsWith('.expected.json'),
  );
  return { dir, cases: cases.sort() };
}

function assertResult(
  got: {
    text: string | null;
    toolCalls: Array<{ id: string; function: { name: string; arguments: string } }>;
    finishReason?: FinishReason;
    usage?: TokenUsage;
  },
  expected: Expected,
) {
  if (expected.text !== undefined) assert.equal(got.text, expected.text);
  if (expected.toolCalls) {
    assert.equal(got.toolCalls.length, expected.toolCalls.length, 'tool calls');
    expected.toolCalls.forEach((call, i) => {
      const actual = got.toolCalls[i]!;
      if (call.id !== undefined) assert.equal(actual.id, call.id);
      else assert.ok(actual.id, 'every call has an id');
      assert.equal(actual.function.name, call.name);
      assert.equal(actual.function.arguments, call.arguments);
    });
  }
  if (expected.finishReason) assert.equal(got.finishReason, expected.finishReason);
  if (expected.usage) assert.deepEqual(got.usage, expected.usage);
}

for (const provider of PROVIDERS) {
  const { dir, cases } = fixturesOf(provider.name);

  describe(`${provider.name} adapter on its wire fixtures`, () => {
    let server: Server;
    let baseUrl: string;
    let answer = { type: 'text/event-stream', bytes: Buffer.alloc(0) };

    before(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': answer.type });
          const bytes = answer.bytes;
          let at = 0;
          const next = () => {
            if (at >= bytes.length) return void res.end();
            res.write(bytes.subarray(at, (at += WRITE_BYTES)));
            setImmediate(next);
          };
          next();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const target = (): UpstreamTarget => ({
      providerId: `fixture-${provider.name}`,
      kind: provider.adapter.kind,
      baseUrl,
      apiKey: API_KEY,
      upstreamModel: provider.model,
    });

    it('has fixtures for text with cached usage, parallel tool calls, a length stop and a JSON answer', () => {
      for (const name of ['text-cached-usage.sse', 'parallel-tool-calls.sse', 'stop-length.sse', 'tool-call.json'])
        assert.ok(cases.includes(name), `${dir}${name}`);
    });

    for (const file of cases) {
      const stream = file.endsWith('.sse');
      const expected = JSON.parse(
        readFileSync(`${dir}${file.replace(/\.(sse|json)$/, '.expected.json')}`, 'utf8'),
      ) as Expected;

      it(`${stream ? 'stream' : 'JSON'}: ${file}`, async () => {
        answer = { type: stream ? 'text/event-stream' : 'application/json', bytes: readFileSync(`${dir}${file}`) };
        const run = async () => {
          if (!stream) {
            const completion = await provider.adapter.complete(chat('fixture'), target(), callOptions());
            return {
              text: completion.message.content,
              toolCalls: completion.message.tool_calls ?? [],
              finishReason: completion.finishReason,
              usage: completion.usage,
            };
          }
          return collect(await provider.adapter.stream(chat('fixture', { stream: true }), target(), callOptions()));
        };
        if (expected.error) {
          const error = await run().then(
            () => assert.fail('expected the adapter to fail'),
            (e: unknown) => e,
          );
          assert.ok(error instanceof UpstreamError, String(error));
          assert.equal(error.details.kind ?? 'http', expected.error.kind);
          if (expected.error.retryable !== undefined) assert.equal(error.details.retryable, expected.error.retryable);
          return;
        }
        assertResult(await run(), expected);
      });
    }
  });
}
