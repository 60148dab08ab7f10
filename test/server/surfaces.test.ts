import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readSurfaces, SurfaceSettingsError } from '../../src/config/surface-settings.js';
import { startHarness } from '../support/gateway-harness.js';

describe('GATEWAY_SURFACES', () => {
  it('serves all three surfaces by default and reads a comma-separated subset', () => {
    assert.deepEqual([...readSurfaces({})], ['gateway', 'console', 'collector']);
    assert.deepEqual([...readSurfaces({ GATEWAY_SURFACES: ' Gateway , collector ' })], ['gateway', 'collector']);
  });

  it('refuses an unknown or empty surface list, naming the variable', () => {
    assert.throws(() => readSurfaces({ GATEWAY_SURFACES: 'gateway,admin' }), SurfaceSettingsError);
    assert.throws(() => readSurfaces({ GATEWAY_SURFACES: ',' }), /GATEWAY_SURFACES must name/);
  });

  it('a gateway-only instance listens once, answers the gateway API and refuses to name the others', async () => {
    const h = await startHarness({ env: { GATEWAY_SURFACES: 'gateway' } });
    try {
      assert.deepEqual([...h.running.served], ['gateway']);
      assert.deepEqual(Object.keys({ ...h.running.urls }), ['gateway']);
      assert.throws(() => h.running.urls.console, /console surface is not served/);
      assert.throws(() => h.running.apps.collector, /collector surface is not served/);
      const models = await h.gateway('GET', '/v1/models');
      assert.equal(models.status, 401, models.text);
    } finally {
      await h.stop();
    }
  });
});
