import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { GATEWAY_ERRORS } from '../../src/pipeline/errors.js';
import { CONSOLE_ERRORS } from '../../src/console/console-error.js';

interface DocumentedCode {
  /** One value: this code (OpenAPI 3.0 tools read `enum` better than `const`). */
  enum: [string];
  description: string;
  'x-status': number;
}

/**
 * One error registry per surface (gateway: src/pipeline/errors.ts; console and collector:
 * src/console/console-error.ts), and each listener's OpenAPI document publishes it whole: every
 * code, its status and its meaning.
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

  for (const surface of ['console', 'collector']) {
    it(`the ${surface} document lists every status of the console envelope`, () => {
      const reasons: DocumentedCode[] = documents[surface].components.schemas.ConsoleError.properties.error.oneOf;
      assert.deepEqual(
        reasons.map((r) => [r['x-status'], r.enum[0]]).sort(),
        Object.entries(CONSOLE_ERRORS)
          .map(([status, reason]) => [Number(status), reason])
          .sort(),
      );
    });
  }
});
