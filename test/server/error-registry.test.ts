import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { collectorClient } from '../support/collector-client.js';
import { GATEWAY_ERRORS } from '../../src/pipeline/errors.js';
import { STATUS_CODES } from 'node:http';
import { CONSOLE_ERRORS } from '../../src/console/console-error.js';
import { COLLECTOR_ERRORS } from '../../src/collector/collector-errors.js';
import { clientErrorBody, HTTP_KIT_ERRORS, type ErrorRegistry } from '../../src/server/error-registry.js';

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
  const documented = (surface: 'console' | 'collector') =>
    documents[surface].components.schemas[schemaNames[surface]].properties;

  for (const surface of ['console', 'collector'] as const) {
    it(`the ${surface} document lists every code of its registry with its status and default message`, () => {
      const registry: ErrorRegistry = registries[surface];
      const codes: DocumentedCode[] = documented(surface).code.oneOf;
      assert.deepEqual(codes.map((c) => c.enum[0]).sort(), Object.keys(registry).sort());
      for (const code of codes) {
        const entry = registry[code.enum[0]]!;
        assert.equal(code['x-status'], entry.status, code.enum[0]);
        assert.ok(code.description.includes(entry.message), code.enum[0]);
      }
      // `error` is the reason phrase of each status the registry holds, and of no other.
      const reasons: DocumentedCode[] = documented(surface).error.oneOf;
      assert.deepEqual(
        reasons.map((r) => [r['x-status'], r.enum[0]]).sort(),
        [...new Set(Object.values(registry).map((e) => e.status))]
          .map((status) => [status, STATUS_CODES[status]])
          .sort(),
      );
    });
  }

  it('what the console and the collector answer carries a code their documents list, with the same status', async () => {
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
      const listed = new Map(
        (documented(surface).code.oneOf as DocumentedCode[]).map((c) => [c.enum[0], c['x-status']] as const),
      );
      for (const answer of answers[surface]) {
        assert.ok(answer.status >= 400, `${surface}: ${answer.status} ${answer.text}`);
        assert.equal(listed.get(answer.json.code), answer.status, `${surface}: ${answer.text}`);
        assert.equal(answer.json.error, STATUS_CODES[answer.status]);
        seen.add(`${surface} ${answer.json.code}`);
      }
    }
    assert.deepEqual([...seen].sort(), [
      'collector not_found',
      'collector unknown_host',
      'console forbidden',
      'console not_found',
      'console unauthorized',
    ]);
  });

  it('an answer given before any request exists has the code of its status (408, 431, 400)', () => {
    for (const [status, code] of [
      [408, 'request_timeout'],
      [431, 'headers_too_large'],
      [400, 'invalid_request'],
    ] as const) {
      const body = clientErrorBody(status, 'm');
      assert.deepEqual(body, { error: STATUS_CODES[status], code, message: 'm' });
      assert.equal(HTTP_KIT_ERRORS[code].status, status);
    }
  });
});
