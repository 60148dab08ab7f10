import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OrganizationAccess } from '../../src/pipeline/organization-access.js';
import type { ProviderKeyRepository } from '../../src/store/provider-keys.js';
import type { AllowListRepository, AllowLists } from '../../src/store/organization-allow-lists.js';

/** A store of one organization's keys whose reads can be held open and counted. */
function fakeStore() {
  const state = {
    keys: new Map<string, string>([['openai', 'sk-org-key-0001']]),
    lists: { models: null, providers: null, updatedAt: null } as AllowLists,
    reads: 0,
    fail: false,
    /** When set, the next read waits for it before answering what the store held when the read began. */
    hold: undefined as Promise<void> | undefined,
  };
  const providerKeys = {
    async secretsOf() {
      state.reads++;
      if (state.fail) throw new Error('database away');
      const snapshot = new Map(state.keys);
      const hold = state.hold;
      state.hold = undefined;
      if (hold) await hold;
      return snapshot;
    },
  } as unknown as ProviderKeyRepository;
  const allowLists = { read: async () => state.lists } as unknown as AllowListRepository;
  return { state, providerKeys, allowLists };
}

describe('organization access cache', () => {
  it('reads an organization at most once per TTL, and again after it', async () => {
    const { state, providerKeys, allowLists } = fakeStore();
    let now = 1_000;
    const access = new OrganizationAccess(providerKeys, allowLists, { ttlMs: 1_000, now: () => now });
    assert.equal((await access.forOrganization('a')).providerKeys.get('openai'), 'sk-org-key-0001');
    await access.forOrganization('a');
    assert.equal(state.reads, 1);
    // Another instance removed the key: this one sees it once the entry is older than the TTL.
    state.keys.clear();
    now += 999;
    assert.equal((await access.forOrganization('a')).providerKeys.size, 1);
    now += 1;
    assert.equal((await access.forOrganization('a')).providerKeys.size, 0);
    assert.equal(state.reads, 2);
  });

  it('invalidate: the next request reads again at once', async () => {
    const { state, providerKeys, allowLists } = fakeStore();
    const access = new OrganizationAccess(providerKeys, allowLists, { ttlMs: 60_000 });
    await access.forOrganization('a');
    state.keys.clear();
    access.invalidate('a');
    assert.equal((await access.forOrganization('a')).providerKeys.size, 0);
  });

  it('a read begun before a removal is read again, never returned or cached', async () => {
    const { state, providerKeys, allowLists } = fakeStore();
    const access = new OrganizationAccess(providerKeys, allowLists, { ttlMs: 60_000 });
    let release!: () => void;
    state.hold = new Promise<void>((resolve) => (release = resolve));
    const racing = access.forOrganization('a');
    // The removal commits and is announced while that read still holds the old key.
    await new Promise((resolve) => setImmediate(resolve));
    state.keys.clear();
    access.invalidate('a');
    release();
    assert.equal((await racing).providerKeys.size, 0, 'the racing request does not get the removed key');
    assert.equal((await access.forOrganization('a')).providerKeys.size, 0, 'nor does the cache keep it');
    assert.equal(state.reads, 2);
  });

  it('keeps serving an expired entry while the store cannot be read, but not an invalidated one', async () => {
    const { state, providerKeys, allowLists } = fakeStore();
    let now = 0;
    const access = new OrganizationAccess(providerKeys, allowLists, { ttlMs: 1_000, now: () => now });
    await access.forOrganization('a');
    state.fail = true;
    now += 5_000;
    assert.equal((await access.forOrganization('a')).providerKeys.size, 1);
    access.invalidate('a');
    await assert.rejects(access.forOrganization('a'), /database away/);
  });

  it('an organization with nothing set gets no keys and no lists', async () => {
    const { state, providerKeys, allowLists } = fakeStore();
    state.keys.clear();
    const routing = await new OrganizationAccess(providerKeys, allowLists).forOrganization('empty');
    assert.deepEqual(
      { keys: routing.providerKeys.size, models: routing.allowedModels, providers: routing.allowedProviders },
      { keys: 0, models: null, providers: null },
    );
  });
});
