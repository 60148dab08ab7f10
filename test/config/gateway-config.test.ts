import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROVIDER_KINDS } from '../../src/canonical/provider-kinds.js';
import { ConfigError, validateGatewayConfig } from '../../src/config/gateway-config.js';

const withProvider = (kind: string) => ({ providers: [{ id: 'p', kind, base_url: 'https://upstream.test/v1' }] });

describe('gateway config: provider kinds', () => {
  it('accepts every declared provider kind', () => {
    for (const kind of PROVIDER_KINDS)
      assert.equal(validateGatewayConfig(withProvider(kind), 'test').providers?.[0]?.kind, kind);
  });

  it('refuses a kind that is not declared, naming where', () => {
    assert.throws(
      () => validateGatewayConfig(withProvider('mistral'), 'test'),
      (error: unknown) => error instanceof ConfigError && /providers\.0\.kind/.test(error.message),
    );
  });
});
