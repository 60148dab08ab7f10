import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompressionConversations, type StoredConversation } from '../../src/store/compression-conversations.js';
import { storeKinds } from '../support/gateway-harness.js';
import { freshStore } from '../support/fresh-store.js';
import { compressConversationRequest } from '../../src/compress/conversation-request.js';
import { anthropicConversationRequest } from '../support/conversation-request.js';

/** A Claude Code first request offering Bash, Read and two GitHub MCP tools, after one call of `called`. */
function claudeCodeBody(task: string, called: string): Record<string, unknown> {
  const tool = (name: string) => ({
    name,
    description: `The ${name} tool of this agent.`,
    input_schema: { type: 'object', properties: { x: { type: 'string' } } },
  });
  return {
    model: 'claude-sonnet-4-5',
    system: 'You are a coding agent.',
    tools: ['Bash', 'Read', 'mcp__github__create_issue', 'mcp__github__list_prs'].map(tool),
    messages: [
      { role: 'user', content: task },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: called, input: { x: 'ls' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.md' }] },
    ],
    max_tokens: 100,
  };
}

const state = (over: Partial<StoredConversation> = {}): StoredConversation => ({
  maskBefore: 0,
  rewriteAt: null,
  requests: 1,
  lastRequestAt: 1_000,
  lastCacheRead: null,
  lastCacheWrite: null,
  savedUnits: 12.6,
  ...over,
});

for (const kind of storeKinds()) {
  describe(`compression conversation state (${kind})`, () => {
    const fixture = freshStore(kind, 'conv');
    let clock = 1_000_000;
    const now = () => clock;

    it('saves and loads a conversation per key; another key or conversation sees nothing', async () => {
      const repo = new CompressionConversations(fixture.store, now);
      await repo.save('k1', 'c1', state({ maskBefore: 3, rewriteAt: 900, lastRequestAt: 950 }));
      assert.deepEqual(
        await repo.load('k1', 'c1'),
        state({ maskBefore: 3, rewriteAt: 900, lastRequestAt: 950, savedUnits: 13 }),
      );
      assert.equal(await repo.load('k2', 'c1'), undefined);
      assert.equal(await repo.load('k1', 'c2'), undefined);
    });

    it('a racing save with an older boundary keeps the newer one', async () => {
      const repo = new CompressionConversations(fixture.store, now);
      await repo.save('k1', 'race', state({ maskBefore: 8, requests: 9 }));
      await repo.save('k1', 'race', state({ maskBefore: 4, requests: 10 }));
      const loaded = await repo.load('k1', 'race');
      assert.equal(loaded?.maskBefore, 8);
      assert.equal(loaded?.requests, 10);
    });

    it('keeps the prefix digest with its boundary: a racing save with an older boundary keeps the newer digest', async () => {
      const repo = new CompressionConversations(fixture.store, now);
      await repo.save('k1', 'digest', state({ maskBefore: 8, prefixDigest: 'd8' }));
      await repo.save('k1', 'digest', state({ maskBefore: 4, prefixDigest: 'd4', requests: 2 }));
      const loaded = await repo.load('k1', 'digest');
      assert.equal(loaded?.maskBefore, 8);
      assert.equal(loaded?.prefixDigest, 'd8');
      assert.equal(loaded?.generation, undefined);
    });

    it('a state started over for another history (a newer generation) replaces the boundary; an older one never brings it back', async () => {
      const repo = new CompressionConversations(fixture.store, now);
      await repo.save('k1', 'gen', state({ maskBefore: 8, prefixDigest: 'old-history' }));
      await repo.save('k1', 'gen', state({ maskBefore: 0, generation: 1 }));
      let loaded = await repo.load('k1', 'gen');
      assert.equal(loaded?.maskBefore, 0);
      assert.equal(loaded?.prefixDigest, undefined);
      assert.equal(loaded?.generation, 1);
      // A late save of the old history, with its larger boundary: the newer generation stays.
      await repo.save('k1', 'gen', state({ maskBefore: 9, prefixDigest: 'old-history-9' }));
      loaded = await repo.load('k1', 'gen');
      assert.equal(loaded?.maskBefore, 0);
      assert.equal(loaded?.prefixDigest, undefined);
      assert.equal(loaded?.generation, 1);
      // Within the new generation the boundary moves forward as usual.
      await repo.save('k1', 'gen', state({ maskBefore: 3, prefixDigest: 'new-3', generation: 1 }));
      loaded = await repo.load('k1', 'gen');
      assert.deepEqual([loaded?.maskBefore, loaded?.prefixDigest, loaded?.generation], [3, 'new-3', 1]);
    });

    it('forgets a conversation of the key only', async () => {
      const repo = new CompressionConversations(fixture.store, now);
      await repo.save('k1', 'head', state());
      await repo.save('k2', 'head', state());
      await repo.forget('k1', 'head');
      assert.equal(await repo.load('k1', 'head'), undefined);
      assert.ok(await repo.load('k2', 'head'));
    });

    it("the upstream's cache usage lands on the request that produced it only", async () => {
      const repo = new CompressionConversations(fixture.store, now);
      await repo.save('k1', 'usage', state({ requests: 5 }));
      await repo.recordUsage('k1', 'usage', 4, { cacheRead: 1, cacheWrite: 2 });
      assert.equal((await repo.load('k1', 'usage'))?.lastCacheRead, null);
      await repo.recordUsage('k1', 'usage', 5, { cacheRead: 7000, cacheWrite: 300 });
      const loaded = await repo.load('k1', 'usage');
      assert.equal(loaded?.lastCacheRead, 7000);
      assert.equal(loaded?.lastCacheWrite, 300);
    });

    it('rows expire, and idle conversations make up the key history, newest first', async () => {
      const repo = new CompressionConversations(fixture.store, now, 10 * 60 * 60 * 1000);
      await repo.save('hist', 'a', state({ requests: 30, lastRequestAt: clock - 2 * 3600_000 }));
      await repo.save('hist', 'b', state({ requests: 12, lastRequestAt: clock - 3600_000 }));
      await repo.save('hist', 'live', state({ requests: 5, lastRequestAt: clock - 60_000 }));
      assert.deepEqual(await repo.history('hist'), [12, 30]);
      clock += 11 * 60 * 60 * 1000;
      assert.equal(await repo.load('hist', 'a'), undefined);
      assert.ok((await repo.deleteExpired()) >= 3);
      assert.deepEqual(await new CompressionConversations(fixture.store, now).history('hist'), []);
    });

    it('keeps the tool surface: a stored decision is never replaced by a racing save; called groups take the newest view', async () => {
      const repo = new CompressionConversations(fixture.store, now);
      await repo.save(
        'k1',
        'tools',
        state({
          droppedToolGroups: ['mcp__github'],
          offeredToolGroups: ['Bash', 'mcp__github'],
          calledToolGroups: ['Bash'],
        }),
      );
      await repo.save(
        'k1',
        'tools',
        state({ requests: 2, droppedToolGroups: [], offeredToolGroups: ['Bash'], calledToolGroups: ['Bash', 'Read'] }),
      );
      const loaded = await repo.load('k1', 'tools');
      assert.deepEqual(loaded?.droppedToolGroups, ['mcp__github']);
      assert.deepEqual(loaded?.offeredToolGroups, ['Bash', 'mcp__github']);
      assert.deepEqual(loaded?.calledToolGroups, ['Bash', 'Read']);
      // Bounded: at most 256 names of at most 128 characters.
      const many = Array.from({ length: 300 }, (_, i) => `g${String(i).padStart(3, '0')}`);
      await repo.save('k1', 'many', state({ calledToolGroups: [...many, 'x'.repeat(129)] }));
      const bounded = (await repo.load('k1', 'many'))?.calledToolGroups;
      assert.equal(bounded?.length, 256);
      assert.ok(bounded?.every((g) => g.length <= 128));
    });

    it("aggregates the tool groups of the key's finished conversations only", async () => {
      const repo = new CompressionConversations(fixture.store, now);
      const idle = clock - 3600_000;
      await repo.save(
        'tk',
        'a',
        state({ lastRequestAt: idle, offeredToolGroups: ['Bash', 'mcp__github'], calledToolGroups: ['Bash'] }),
      );
      await repo.save(
        'tk',
        'b',
        state({ lastRequestAt: idle, offeredToolGroups: ['Bash'], calledToolGroups: ['mcp__slack'] }),
      );
      await repo.save('tk', 'old', state({ lastRequestAt: idle }));
      await repo.save(
        'tk',
        'live',
        state({ lastRequestAt: clock - 60_000, offeredToolGroups: ['Bash'], calledToolGroups: ['mcp__github'] }),
      );
      const history = await repo.toolGroupHistory('tk');
      assert.equal(history.conversations, 2);
      assert.deepEqual({ ...history.offered }, { Bash: 2, mcp__github: 1 });
      assert.deepEqual(history.called, ['Bash', 'mcp__slack']);
    });

    for (const [finished, dropped] of [
      [24, true],
      [23, false],
    ] as const) {
      it(`a new conversation of a key with ${finished} finished conversations that never called GitHub ${dropped ? 'drops' : 'keeps'} its tools`, async () => {
        const key = `key_${finished}`;
        const repo = new CompressionConversations(fixture.store, now);
        const send = (sessionId: string, body: Record<string, unknown>, at: number) =>
          compressConversationRequest(
            body,
            anthropicConversationRequest({ apiKeyId: key, sessionId, store: repo, now: at }),
          );
        const start = clock;
        for (let i = 0; i < finished; i++) await send(`s${i}`, claudeCodeBody(`task ${i}`, 'Bash'), start);
        clock = start + 31 * 60_000;
        const first = await send('new', claudeCodeBody('new task', 'Read'), clock);
        const tools = (first.body.tools as { name: string }[]).map((t) => t.name);
        assert.deepEqual(
          tools,
          dropped ? ['Bash', 'Read'] : ['Bash', 'Read', 'mcp__github__create_issue', 'mcp__github__list_prs'],
        );
        assert.deepEqual(
          (await repo.load(key, first.conversationId))?.droppedToolGroups,
          dropped ? ['mcp__github'] : [],
        );
        // A later request of the conversation, on another instance that sees GitHub used since: the same tools.
        const other = new CompressionConversations(fixture.store, now);
        await other.save(
          key,
          'uses-github',
          state({
            lastRequestAt: clock - 3600_000,
            offeredToolGroups: ['mcp__github'],
            calledToolGroups: ['mcp__github'],
          }),
        );
        const later = await compressConversationRequest(
          claudeCodeBody('new task', 'Read'),
          anthropicConversationRequest({ apiKeyId: key, sessionId: 'new', store: other, now: clock + 20_000 }),
        );
        assert.equal(JSON.stringify(later.body.tools), JSON.stringify(first.body.tools));
      });
    }
  });
}
