import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readOffloadSettings, readRouteBodyLimits } from '../../src/config/route-limits.js';
import { readSettings } from '../../src/config/settings.js';
import { OFFLOAD_DEFAULTS } from '../../src/offload/index.js';
import { defaultOffloadThreads } from '../../src/config/offload-settings.js';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('per-route body limits and the worker pool settings', () => {
  it('each route limit defaults to GATEWAY_BODY_LIMIT_BYTES and can be set on its own', () => {
    assert.deepEqual(readSettings({ GATEWAY_BODY_LIMIT_BYTES: '1000' }).routeBodyLimits, {
      chatBytes: 1000,
      countTokensBytes: 1000,
      compressBytes: 1000,
    });
    assert.deepEqual(
      readRouteBodyLimits(
        {
          GATEWAY_CHAT_BODY_LIMIT_BYTES: '1',
          GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES: '2',
          GATEWAY_COMPRESS_BODY_LIMIT_BYTES: String(64 * 1024 * 1024),
        },
        10,
      ),
      { chatBytes: 1, countTokensBytes: 2, compressBytes: 64 * 1024 * 1024 },
    );
  });

  it('refuses a limit that is no positive integer or beyond 256 MiB, naming the variable', () => {
    assert.throws(() => readRouteBodyLimits({ GATEWAY_COMPRESS_BODY_LIMIT_BYTES: 'big' }, 10), /GATEWAY_COMPRESS_BODY/);
    assert.throws(() => readRouteBodyLimits({ GATEWAY_CHAT_BODY_LIMIT_BYTES: '0' }, 10), /GATEWAY_CHAT_BODY/);
    assert.throws(
      () => readRouteBodyLimits({ GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES: String(2 ** 30) }, 10),
      /GATEWAY_COUNT_TOKENS_BODY/,
    );
    assert.throws(() => readOffloadSettings({ GATEWAY_OFFLOAD_THREADS: '0' }), /GATEWAY_OFFLOAD_THREADS/);
    assert.throws(() => readOffloadSettings({ GATEWAY_OFFLOAD_NICE: '20' }), /GATEWAY_OFFLOAD_NICE/);
  });

  it('reads the pool settings, with defaults', () => {
    assert.deepEqual(readOffloadSettings({}), OFFLOAD_DEFAULTS);
    assert.deepEqual(
      readOffloadSettings({
        GATEWAY_OFFLOAD_THREADS: '2',
        GATEWAY_OFFLOAD_MAX_QUEUE: '5',
        GATEWAY_OFFLOAD_MIN_CHARS: '100',
        GATEWAY_OFFLOAD_COMPRESS_MIN_CHARS: '200',
        GATEWAY_OFFLOAD_NICE: '3',
      }),
      { threads: 2, maxQueue: 5, minChars: 100, compressMinChars: 200, nice: 3 },
    );
  });

  it('runs a thread a core when they are niced below the event loop (Linux), one core fewer when not', () => {
    const cores = availableParallelism();
    const fewer = Math.max(1, Math.min(4, cores - 1));
    assert.equal(defaultOffloadThreads(10, 'linux'), Math.min(4, cores));
    assert.equal(defaultOffloadThreads(0, 'linux'), fewer);
    assert.equal(defaultOffloadThreads(10, 'darwin'), fewer);
    if (process.platform === 'linux') assert.equal(readOffloadSettings({ GATEWAY_OFFLOAD_NICE: '0' }).threads, fewer);
  });

  it('documents every variable in docs/configuration.md', () => {
    for (const name of [
      'GATEWAY_CHAT_BODY_LIMIT_BYTES',
      'GATEWAY_COUNT_TOKENS_BODY_LIMIT_BYTES',
      'GATEWAY_COMPRESS_BODY_LIMIT_BYTES',
      'GATEWAY_OFFLOAD_THREADS',
    ])
      assert.match(DOC, new RegExp(`\\| \`${name}\` \\|`), name);
    for (const [name, value] of [
      ['GATEWAY_OFFLOAD_MIN_CHARS', OFFLOAD_DEFAULTS.minChars],
      ['GATEWAY_OFFLOAD_MAX_QUEUE', OFFLOAD_DEFAULTS.maxQueue],
      ['GATEWAY_OFFLOAD_COMPRESS_MIN_CHARS', OFFLOAD_DEFAULTS.compressMinChars],
      ['GATEWAY_OFFLOAD_NICE', OFFLOAD_DEFAULTS.nice],
    ] as const)
      assert.match(DOC, new RegExp(`\\| \`${name}\` \\| \`${value}\` \\|`), `${name} with default ${value}`);
  });
});
