import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { GATEWAY_ERRORS } from '../../src/pipeline/errors.js';
import { STATUS_CODES } from 'node:http';
import { CONSOLE_ERRORS } from '../../src/console/console-error.js';
import { COLLECTOR_ERRORS } from '../../src/collector/collector-errors.js';
import type { ErrorRegistry } from '../../src/server/error-registry.js';

interface DocumentedCode {
  /** One value: this code (OpenAPI 3.0 tools read `enum` better than `const`). */
  enum: [string];
  description: string;
  'x-status': number;
}

/**
 * One error registry per surface (gateway: src/pipeline/errors.ts; console:
 * src/console/console-error.ts; collector: src/collector/collector-errors.ts), and each
 * listener's OpenAPI document publishes it whole: every code, its status and its meaning.
 */
describe('error registries in the OpenAPI documents', () => {
  let h: Harness;
  const documents: Record<string, any> = {};

  before(async () => {
    h = await startHarness();
    for (const surface of ['gateway', 'console', 'collector'] as const)
      documents[surface] = (await h[surface]('GET', '/openapi.json')).json;
  });
  after(() => h.stop());

  it('the gateway document lists every gateway error code with its status and default message', () => {
    const codes: DocumentedCode[] =
      documents.gateway.components.schemas.GatewayError.properties.error.properties.code.oneOf;
    assert.deepEqual(codes.map((c) => c.enum[0]).sort(), Object.keys(GATEWAY_ERRORS).sort());
    for (const code of codes) {
      const entry = GATEWAY_ERRORS[code.enum[0] as keyof typeof GATEWAY_ERRORS];
      assert.equal(code['x-status'], entry.status, code.enum[0]);
      assert.ok(
        code.description.includes(String(entry.status)) && code.description.includes(entry.message),
        code.enum[0],
      );
    }
  });

  const registries = { console: CONSOLE_ERRORS, collector: COLLECTOR_ERRORS } as const;
  const schemaNames = { console: 'ConsoleError', collector: 'CollectorError' } as const;
  interface DocumentedReason extends DocumentedCode {
    'x-codes': Record<string, string>;
  }
  const reasonsOf = (surface: 'console' | 'collector'): DocumentedReason[] =>
    documents[surface].components.schemas[schemaNames[surface]].properties.error.oneOf;

  for (const surface of ['console', 'collector'] as const) {
    it(`the ${surface} document lists every code of its registry under its status's reason phrase, with its default message`, () => {
      const registry: ErrorRegistry = registries[surface];
      const listed = new Map<string, { status: number; reason: string; message: string }>();
      for (const reason of reasonsOf(surface)) {
        assert.equal(reason.enum[0], STATUS_CODES[reason['x-status']]);
        for (const [code, message] of Object.entries(reason['x-codes'])) {
          assert.ok(!listed.has(code), `${code} is listed twice`);
          listed.set(code, { status: reason['x-status'], reason: reason.enum[0], message });
          assert.ok(reason.description.includes(code), code);
        }
      }
      assert.deepEqual([...listed.keys()].sort(), Object.keys(registry).sort());
      for (const [code, entry] of Object.entries(registry)) {
        assert.equal(listed.get(code)?.status, entry.status, code);
        assert.equal(listed.get(code)?.message, entry.message, code);
      }
    });
  }

  it('what the console and the collector answer is a reason phrase their documents list, with the same status', async () => {
    const org = await h.organization('registry-probe', 'read');
    // The collector serves a project by the Host it is asked for.
    const byHost = collectorClient(h.running.urls.collector, h.ca);
    const unknownHost = await byHost
      .call('POST', 'nobody.example.test', { body: { data_collection: { events: [] } } })
      .finally(() => byHost.close());
    const answers = {
      console: [
        await h.console('GET', '/v1/organizations/me'),
        await h.console('GET', '/v1/no-such-route', { token: org.token }),
        await h.console('POST', `/v1/organizations/${org.id}/api_keys`, { token: org.token, body: { name: 'k' } }),
        await h.console('GET', `/v1/organizations/${org.id}/api_keys/key_missing`, { token: org.token }),
      ],
      collector: [unknownHost, await h.collector('GET', '/no-such-route')],
    };
    const seen = new Set<string>();
    for (const surface of ['console', 'collector'] as const) {
      const listed = new Map(reasonsOf(surface).map((r) => [r.enum[0], r['x-status']] as const));
      for (const answer of answers[surface]) {
        assert.ok(answer.status >= 400, `${surface}: ${answer.status} ${answer.text}`);
        assert.equal(listed.get(answer.json.error), answer.status, `${surface}: ${answer.text}`);
        seen.add(`${surface} ${answer.status}`);
      }
    }
    assert.deepEqual([...seen].sort(), ['collector 404', 'console 401', 'console 403', 'console 404']);
  });
});
