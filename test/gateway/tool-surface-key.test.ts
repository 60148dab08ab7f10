import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';
import { CompressionConversations } from '../../src/store/compression-conversations.js';

/**
 * The key setting `tool_surface` (migration 014) on the gateway paths: a key with it off keeps
 * every tool where a key with it on drops the unused MCP server, and X-Gateway-Tool-Surface wins
 * over the key in both directions, on the chat path and on /v1/compress. Both keys have a history
 * of 24 finished conversations that offered GitHub's MCP tools and never called them (the rule's
 * threshold, docs/compression.md "Tool surface").
 */
for (const kind of storeKinds()) {
  describe(`tool_surface key setting on the gateway paths (${kind})`, () => {
    let h: Harness;
    let openai: MockUpstream;
    let org: { id: string; token: string };
    let on: Awaited<ReturnType<Harness['createKey']>>;
    let off: Awaited<ReturnType<Harness['createKey']>>;

    const tool = (name: string) => ({
      type: 'function',
      function: {
        name,
        description: `The ${name} tool of this agent.`,
        parameters: { type: 'object', properties: { x: { type: 'string' } } },
      },
    });
    const ALL = ['Bash', 'Read', 'mcp__github__create_issue', 'mcp__github__list_prs'];
    /** A new conversation (its own task) offering Bash, Read and two GitHub MCP tools. */
    const body = (task: string) => ({
      model: 'test/gpt',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: task },
      ],
      tools: ALL.map(tool),
    });
    const names = (tools: unknown) => (tools as Array<{ function: { name: string } }>).map((t) => t.function.name);

    async function upstreamTools(key: string, task: string, headers: Record<string, string> = {}) {
      const result = await h.gateway('POST', '/v1/chat/completions', { token: key, headers, body: body(task) });
      assert.equal(result.status, 200, result.text);
      return names((openai.lastRequest()!.body as { tools: unknown }).tools);
    }
    async function compressedTools(key: string, task: string, headers: Record<string, string> = {}) {
      const result = await h.gateway('POST', '/v1/compress', { token: key, headers, body: body(task) });
      assert.equal(result.status, 200, result.text);
      return names(result.json.tools);
    }

    before(async () => {
      openai = await startMockOpenAI();
      h = await startHarness({
        store: kind,
        config: {
          providers: [{ id: 'mock-openai', kind: 'openai', base_url: openai.baseUrl, api_key_env: 'MOCK_KEY' }],
          models: [{ id: 'test/gpt', providers: [{ provider: 'mock-openai', model: 'gpt' }], pricing: PRICING }],
        },
        env: { MOCK_KEY: 'sk-mock' },
      });
      org = await h.organization();
      on = await h.createKey(org, { name: 'surface-on', compression: true });
      off = await h.createKey(org, { name: 'surface-off', compression: true, tool_surface: false });
      // Seeded before any request, so the gateway's per-key history cache starts from these rows.
      const conversations = new CompressionConversations(h.running.store);
      const idle = Date.now() - 3_600_000;
      for (const key of [on, off])
        for (let i = 0; i < 24; i++)
          await conversations.save(key.id, `finished-${i}`, {
            maskBefore: 0,
            rewriteAt: null,
            requests: 3,
            lastRequestAt: idle,
            lastCacheRead: null,
            lastCacheWrite: null,
            savedUnits: 0,
            offeredToolGroups: ['Bash', 'Read', 'mcp__github'],
            calledToolGroups: ['Bash', 'Read'],
          });
    });
    after(async () => {
      await h?.stop();
      await openai.close();
    });

    it('a key with tool_surface on drops the unused MCP server on the chat path and on /v1/compress', async () => {
      assert.equal(on.tool_surface, true, 'on by default');
      assert.deepEqual(await upstreamTools(on.key, 'Task on 1.'), ['Bash', 'Read']);
      assert.deepEqual(await compressedTools(on.key, 'Task on 2.'), ['Bash', 'Read']);
    });

    it('a key with tool_surface off drops nothing on either path, with the same history', async () => {
      assert.deepEqual(await upstreamTools(off.key, 'Task off 1.'), ALL);
      assert.deepEqual(await compressedTools(off.key, 'Task off 2.'), ALL);
    });

    it('X-Gateway-Tool-Surface: on overrides the key that has it off, and off overrides the key that has it on', async () => {
      const forced = { 'x-gateway-tool-surface': 'on' };
      assert.deepEqual(await upstreamTools(off.key, 'Task forced 1.', forced), ['Bash', 'Read']);
      assert.deepEqual(await compressedTools(off.key, 'Task forced 2.', forced), ['Bash', 'Read']);
      const refused = { 'x-gateway-tool-surface': 'off' };
      assert.deepEqual(await upstreamTools(on.key, 'Task refused 1.', refused), ALL);
      assert.deepEqual(await compressedTools(on.key, 'Task refused 2.', refused), ALL);
    });

    it('turning the setting on through the console API applies to the next new conversation', async () => {
      const updated = await h.console('POST', `/v1/organizations/${org.id}/api_keys/${off.id}`, {
        token: org.token,
        body: { tool_surface: true },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.tool_surface, true);
      assert.deepEqual(await upstreamTools(off.key, 'Task after update.'), ['Bash', 'Read']);
    });
  });
}
