// One conversation state per history, through the gateway: the session headers each agent sends
// are read on /v1/compress and on the model routes (/v1/messages here), and the state lands in the
// store under the history's own id
// (src/compress/conversation-id.ts, session-headers.ts).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startHarness, storeKinds, type Harness } from '../support/gateway-harness.js';
import { startMockAnthropic, type MockUpstream } from '../support/mock-upstreams/index.js';
import { PRICING } from '../support/chat-kit.js';
import { build, type Dialogue } from '../compress/helpers/build.js';
import { conversationIds } from '../../src/compress/conversation-id.js';
import { sessionIdFrom } from '../../src/compress/session-headers.js';
import { CompressionConversations } from '../../src/store/compression-conversations.js';

const TINY = 'anthropic/claude-tiny';

/** A Claude Code-style thread: `task`, then `turns` calls whose outputs are all new and long. */
function thread(tag: string, task: string, turns: number): Record<string, unknown> {
  const dialogue: Dialogue = {
    system: 'You are Claude Code.',
    task,
    turns: Array.from({ length: turns }, (_, i) => ({
      assistant: `Step ${i}.`,
      calls: [
        {
          id: `toolu_${tag}_${i}`,
          name: 'Bash',
          args: { command: `python step_${i}.py` },
          output: Array.from(
            { length: 100 },
            (_, k) => `${tag} ${i} row ${k}: ${(i * 7919 + k * 104729) % 100_003}`,
          ).join('\n'),
        },
      ],
    })),
  };
  return { ...build(dialogue, 'messages'), model: TINY };
}

for (const kind of storeKinds()) {
  describe(`conversation histories through the gateway (${kind})`, () => {
    let h: Harness;
    let anthropic: MockUpstream;
    let key: { id: string; key: string };
    let conversations: CompressionConversations;

    before(async () => {
      anthropic = await startMockAnthropic();
      // A small context window: the history is rewritten as it grows, no clock needed.
      h = await startHarness({
        store: kind,
        config: {
          providers: [
            { id: 'mock-anthropic', kind: 'anthropic', base_url: anthropic.baseUrl, api_key_env: 'MOCK_KEY' },
          ],
          models: [
            {
              id: TINY,
              providers: [{ provider: 'mock-anthropic', model: 'claude-tiny' }],
              pricing: PRICING,
              context_window: 8000,
            },
          ],
        },
        env: { MOCK_KEY: 'sk-mock' },
      });
      const org = await h.organization();
      key = await h.createKey(org, { name: 'histories', compression: true });
      conversations = new CompressionConversations(h.running.store);
    });
    after(async () => {
      await h?.stop();
      await anthropic?.close();
    });

    async function compress(body: Record<string, unknown>, headers: Record<string, string>) {
      const result = await h.gateway('POST', '/v1/compress', { token: key.key, headers, body });
      assert.equal(result.status, 200, result.text);
      return result.json as Record<string, unknown>;
    }
    const stateOf = (body: Record<string, unknown>, headers: Record<string, string>) =>
      conversations.load(key.id, conversationIds(body, sessionIdFrom(headers)).history);

    it("Claude Code: a subagent's requests (x-claude-code-agent-id) never move the main conversation's boundary", async () => {
      const main = { 'x-claude-code-session-id': 'b10a3e92-d015-4a2d-aedf-26d04fdc40c1' };
      const subagent = { ...main, 'x-claude-code-agent-id': 'a41f2c' };
      for (let n = 0; n <= 10; n++) await compress(thread('m', 'Fix the build.', n), main);
      const before = await stateOf(thread('m', 'Fix the build.', 10), main);
      assert.ok(before && before.maskBefore > 0, 'the context window made the main history be rewritten');
      // A longer subagent history: a state shared with it would have its boundary moved further.
      for (let n = 0; n <= 16; n++) await compress(thread('s', 'Find the parser.', n), subagent);
      const sub = await stateOf(thread('s', 'Find the parser.', 16), subagent);
      assert.ok(sub && sub.maskBefore > before.maskBefore);
      assert.deepEqual(await stateOf(thread('m', 'Fix the build.', 10), main), before);
    });

    it('Codex: another context window (after a compaction) or thread of one session gets its own state', async () => {
      const session = '01a24cbe-f765-7232-89e7-b04929df4509';
      const headers = (window: number, thread = session) => ({
        'session-id': session,
        'thread-id': thread,
        'x-codex-window-id': `${thread}:${window}`,
      });
      const body = thread('c', 'Summarise the repository.', 2);
      await compress(body, headers(0));
      await compress(body, headers(1));
      await compress(body, headers(0, 'subagent-thread'));
      const states = await Promise.all(
        [headers(0), headers(1), headers(0, 'subagent-thread')].map((h) => stateOf(body, h)),
      );
      assert.deepEqual(
        states.map((s) => s?.requests),
        [1, 1, 1],
        'three states of one request each, not one of three',
      );
    });

    it('opencode (x-session-id) and no header at all: two sessions of one directory get two states', async () => {
      const first = thread('o1', 'Add a test.', 3);
      const second = thread('o2', 'Add a test.', 3);
      for (const headers of [{ 'x-session-id': 'ses_decdae24bffe40B8GMW9Y2srMS' }, {}] as Record<string, string>[]) {
        await compress(first, headers);
        await compress(second, headers);
        assert.equal((await stateOf(first, headers))?.requests, 1);
        assert.equal((await stateOf(second, headers))?.requests, 1);
      }
    });

    it("on /v1/messages, Claude Code's recorded headers: the main agent and a subagent each get their state", async () => {
      const recorded = JSON.parse(
        readFileSync(new URL('../fixtures/agents/claude-code-2.1.332/02-tool-result.json', import.meta.url), 'utf8'),
      ) as { headers: Record<string, string> };
      const main = { 'x-claude-code-session-id': recorded.headers['x-claude-code-session-id']! };
      const subagent = { ...main, 'x-claude-code-agent-id': 'a9d01e' };
      for (const [headers, body] of [
        [main, thread('n', 'Fix the test.', 2)],
        [subagent, thread('t', 'Read the test.', 2)],
      ] as const) {
        const result = await h.gateway('POST', '/v1/messages', {
          token: key.key,
          headers: { ...headers, 'anthropic-version': '2023-06-01' },
          body: { ...body, max_tokens: 100 },
        });
        assert.equal(result.status, 200, result.text);
      }
      assert.equal((await stateOf(thread('n', 'Fix the test.', 2), main))?.requests, 1);
      assert.equal((await stateOf(thread('t', 'Read the test.', 2), subagent))?.requests, 1);
    });
  });
}
