import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ADDRESS_PENALTY_DEFAULTS,
  CONNECTION_DEFAULTS,
  fitConnectionCap,
  openFilesLimit,
  readAddressPenaltySettings,
  readConnectionSettings,
} from '../../src/config/connection-settings.js';
import { readSettings } from '../../src/config/settings.js';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('connection settings', () => {
  it('reads every timeout and cap from the environment', () => {
    const settings = readConnectionSettings({
      GATEWAY_HANDSHAKE_TIMEOUT_MS: '1',
      GATEWAY_HEADERS_TIMEOUT_MS: '2',
      GATEWAY_BODY_TIMEOUT_MS: '3',
      GATEWAY_BODY_MIN_BYTES_PER_SECOND: '4',
      GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '5',
      GATEWAY_MAX_CONNECTIONS: '6',
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '0',
    });
    assert.deepEqual(settings, {
      handshakeTimeoutMs: 1,
      headersTimeoutMs: 2,
      bodyTimeoutMs: 3,
      bodyMinBytesPerSecond: 4,
      keepAliveTimeoutMs: 5,
      maxConnections: 6,
      maxConnectionsPerAddress: 0,
    });
    assert.deepEqual(readSettings({}).connections, CONNECTION_DEFAULTS);
  });

  it('reads the address penalty box from the environment, with documented defaults', () => {
    assert.deepEqual(
      readAddressPenaltySettings({
        GATEWAY_ADDRESS_PENALTY_CUTS: '0',
        GATEWAY_ADDRESS_PENALTY_WINDOW_MS: '2',
        GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS: '3',
        GATEWAY_ADDRESS_PENALTY_IGNORED_REFUSALS: '0',
      }),
      { cuts: 0, windowMs: 2, cooldownMs: 3, ignoredRefusals: 0 },
    );
    assert.deepEqual(readSettings({}).addressPenalty, ADDRESS_PENALTY_DEFAULTS);
    assert.throws(
      () => readAddressPenaltySettings({ GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS: '0' }),
      /GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS/,
    );
    for (const [name, value] of [
      ['GATEWAY_ADDRESS_PENALTY_CUTS', ADDRESS_PENALTY_DEFAULTS.cuts],
      ['GATEWAY_ADDRESS_PENALTY_WINDOW_MS', ADDRESS_PENALTY_DEFAULTS.windowMs],
      ['GATEWAY_ADDRESS_PENALTY_COOLDOWN_MS', ADDRESS_PENALTY_DEFAULTS.cooldownMs],
      ['GATEWAY_ADDRESS_PENALTY_IGNORED_REFUSALS', ADDRESS_PENALTY_DEFAULTS.ignoredRefusals],
    ] as const)
      assert.match(DOC, new RegExp(`\\| \`${name}\` \\| \`${value}\` \\|`), `${name} with default ${value}`);
  });

  it('refuses a value that is not a whole number in range, naming the variable', () => {
    assert.throws(() => readConnectionSettings({ GATEWAY_HEADERS_TIMEOUT_MS: '0' }), /GATEWAY_HEADERS_TIMEOUT_MS/);
    assert.throws(() => readConnectionSettings({ GATEWAY_MAX_CONNECTIONS: '1.5' }), /GATEWAY_MAX_CONNECTIONS/);
    assert.throws(
      () => readConnectionSettings({ GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '-1' }),
      /GATEWAY_MAX_CONNECTIONS_PER_ADDRESS/,
    );
    assert.throws(() => readSettings({ GATEWAY_BODY_TIMEOUT_MS: 'soon' }), /GATEWAY_BODY_TIMEOUT_MS/);
  });

  it('documents every variable with its default in docs/configuration.md', () => {
    const documented: Record<string, number> = {
      GATEWAY_HANDSHAKE_TIMEOUT_MS: CONNECTION_DEFAULTS.handshakeTimeoutMs,
      GATEWAY_HEADERS_TIMEOUT_MS: CONNECTION_DEFAULTS.headersTimeoutMs,
      GATEWAY_BODY_TIMEOUT_MS: CONNECTION_DEFAULTS.bodyTimeoutMs,
      GATEWAY_BODY_MIN_BYTES_PER_SECOND: CONNECTION_DEFAULTS.bodyMinBytesPerSecond,
      GATEWAY_KEEP_ALIVE_TIMEOUT_MS: CONNECTION_DEFAULTS.keepAliveTimeoutMs,
      GATEWAY_MAX_CONNECTIONS: CONNECTION_DEFAULTS.maxConnections,
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: CONNECTION_DEFAULTS.maxConnectionsPerAddress,
    };
    for (const [name, value] of Object.entries(documented)) {
      assert.match(DOC, new RegExp(`\\| \`${name}\` \\| \`${value}\` \\|`), `${name} with default ${value}`);
    }
  });

  it('lowers the connection cap to fit the open-files limit, keeping 1,024 descriptors for the rest', () => {
    assert.deepEqual(fitConnectionCap(10_000, 1_048_576), { cap: 10_000, lowered: false });
    assert.deepEqual(fitConnectionCap(10_000, 4_096), { cap: 3_072, lowered: true });
    assert.deepEqual(fitConnectionCap(10_000, 1_024), { cap: 64, lowered: true });
    assert.deepEqual(fitConnectionCap(10_000, undefined), { cap: 10_000, lowered: false });

    const dir = mkdtempSync(join(tmpdir(), 'limits-'));
    const file = join(dir, 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units     \n' +
        'Max open files            20000                20000                files     \n',
    );
    assert.equal(openFilesLimit(file), 20_000);
    assert.equal(openFilesLimit(join(dir, 'missing')), undefined);
  });
});
