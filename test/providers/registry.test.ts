import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROVIDER_KINDS } from '../../src/canonical/provider-kinds.js';
import { adapters, getAdapter } from '../../src/providers/registry.js';

describe('provider registry', () => {
  it('files each declared kind under an adapter of that kind, and nothing else', () => {
    assert.deepEqual(Object.keys(adapters).sort(), [...PROVIDER_KINDS].sort());
    for (const kind of PROVIDER_KINDS) assert.equal(getAdapter(kind).kind, kind);
  });
});
