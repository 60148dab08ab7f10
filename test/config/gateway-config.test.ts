import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROVIDER_KINDS } from '../../src/canonical/provider-kinds.js';
import { ConfigError, validateGatewayConfig } from '../../src/config/gateway-config.js';
import { Catalogue } from '../../src/catalogue/catalogue.js';

const withProvider = (kind: string) => ({ providers: [{ id: 'p', kind, base_url: 'https://upstream.test/v1' }] });

describe('gateway config: provider kinds', () => {
  it('accepts every declared provider kind', () => {
    for (const kind of PROVIDER_KINDS)
      assert.equal(validateGatewayConfig(withProvider(kind), 'test').providers?.[0]?.kind, kind);
  });

  // The schema does not name the kinds (a provider registered at run time is a kind too): the
  // catalogue refuses a kind no adapter has when it loads the file, at start-up and on a reload.
  it('refuses a kind no provider adapter has when the catalogue loads, naming the provider and the kind', () => {
    const config = validateGatewayConfig(withProvider('mistral'), 'test');
    assert.throws(
      () => new Catalogue(config, {}),
      (error: unknown) => error instanceof ConfigError && /provider p has kind "mistral"/.test(error.message),
    );
  });

  it('refuses a kind that is no name, naming where', () => {
    assert.throws(
      () => validateGatewayConfig(withProvider('Not A Kind!'), 'test'),
      (error: unknown) => error instanceof ConfigError && /providers\.0\.kind/.test(error.message),
    );
  });
});
