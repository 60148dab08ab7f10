import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { accessOf, patchFor, type ToolSettings } from '../../web/src/pages/keys/tool-access.js';

/**
 * The key dialog of the web console writes organization-level tool settings for one key's
 * choice. Whatever the settings were, the chosen key must end up with what was asked and every
 * other key with what it had.
 */
const KEYS = ['k1', 'k2', 'k3', 'k4'];
const keyList = fc.subarray([...KEYS, 'deleted-key']);
const tool = fc.record({
  active: fc.boolean(),
  active_key_ids: fc.option(keyList, { nil: null }),
  hydrate: fc.boolean(),
  hydrate_key_ids: keyList,
});
const wanted = fc.record({ usable: fc.boolean(), injected: fc.boolean() });

const toolOf = (settings: ToolSettings): ToolSettings => ({ ...settings });

describe('web console: gateway tool access per key', () => {
  it('gives the chosen key what was asked and leaves every other key as it was', () => {
    fc.assert(
      fc.property(tool, fc.constantFrom(...KEYS), wanted, (settings, keyId, want) => {
        const before = toolOf(settings);
        const patch = patchFor(before, keyId, want, KEYS);
        const after = { ...before, ...(patch ?? {}) };
        const got = accessOf(after, keyId);
        assert.equal(got.usable, want.usable);
        if (want.usable) assert.equal(got.injected, want.injected);
        for (const other of KEYS.filter((k) => k !== keyId))
          assert.deepEqual(accessOf(after, other), accessOf(before, other), `key ${other}`);
        // Only live keys are ever sent: the API refuses ids it does not know.
        for (const list of [patch?.active_key_ids ?? [], patch?.hydrate_key_ids ?? []])
          assert.ok(!list.includes('deleted-key'));
      }),
      { numRuns: 2_000 },
    );
  });

  it('changes nothing when the key already has what was asked', () => {
    const settings = toolOf({ active: true, active_key_ids: null, hydrate: true, hydrate_key_ids: [] });
    assert.equal(patchFor(settings, 'k1', { usable: true, injected: true }, KEYS), null);
  });

  it('giving an inactive tool to one key does not open it to every key', () => {
    const settings = toolOf({ active: false, active_key_ids: null, hydrate: false, hydrate_key_ids: [] });
    assert.deepEqual(patchFor(settings, 'k2', { usable: true, injected: false }, KEYS), {
      active: true,
      active_key_ids: ['k2'],
    });
  });
});
