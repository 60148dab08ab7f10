import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ACCESS_LOG_DEFAULTS, readAccessLogSettings } from '../../src/config/access-log-settings.js';

describe('access log settings (docs/configuration.md, "Access log")', () => {
  it('defaults: every request at info, 60 stored refusals per key and minute, 30 days', () => {
    assert.deepEqual(readAccessLogSettings({}), {
      mode: 'all',
      sample: 1,
      level: 'info',
      storedRefusalsPerKeyPerMinute: 60,
      refusalRetentionDays: 30,
    });
    assert.deepEqual(readAccessLogSettings({}), ACCESS_LOG_DEFAULTS);
  });

  it('reads every variable', () => {
    assert.deepEqual(
      readAccessLogSettings({
        GATEWAY_ACCESS_LOG: 'errors',
        GATEWAY_ACCESS_LOG_SAMPLE: '0.25',
        GATEWAY_ACCESS_LOG_LEVEL: 'debug',
        GATEWAY_STORED_REFUSALS_PER_KEY_PER_MINUTE: '0',
        GATEWAY_REFUSAL_RETENTION_DAYS: '7',
      }),
      { mode: 'errors', sample: 0.25, level: 'debug', storedRefusalsPerKeyPerMinute: 0, refusalRetentionDays: 7 },
    );
  });

  it('a bad value stops the start with the variable named', () => {
    for (const [name, value] of [
      ['GATEWAY_ACCESS_LOG', 'some'],
      ['GATEWAY_ACCESS_LOG_SAMPLE', '1.5'],
      ['GATEWAY_ACCESS_LOG_SAMPLE', 'half'],
      ['GATEWAY_ACCESS_LOG_LEVEL', 'silent'],
      ['GATEWAY_STORED_REFUSALS_PER_KEY_PER_MINUTE', '-1'],
      ['GATEWAY_REFUSAL_RETENTION_DAYS', '0'],
    ] as const) {
      assert.throws(() => readAccessLogSettings({ [name]: value }), new RegExp(`^Error: ${name} must`), name);
    }
  });
});
