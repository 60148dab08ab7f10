import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cachePricingFor } from '../../src/catalogue/cache-pricing.js';
import { chainKeys, PromptCacheSimulator, type PromptBlock } from '../../src/catalogue/prompt-cache-simulator.js';
import { countBreakpoints, placeBreakpoints } from '../../src/compress/breakpoints.js';

const E = { type: 'ephemeral' };
type Obj = Record<string, unknown>;

const messagesBody = (): Obj => ({
  model: 'claude-sonnet-4-5',
  system: 'You are a coding agent.',
  messages: [
    { role: 'user', content: 'Fix the bug.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.py' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'bash', input: { command: 'cat a.py' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'print(1)' }] },
  ],
});

describe('cache breakpoints the gateway places', () => {
  it('client without cache_control, Messages body: end of system, the boundary turn, the last message', () => {
    const body = messagesBody();
    const placed = placeBreakpoints(body, 3);
    assert.equal(placed.client, 0);
    assert.equal(placed.added, 3);
    const out = placed.body as { system: Obj[]; messages: { content: Obj[] }[] };
    assert.deepEqual(out.system, [{ type: 'text', text: 'You are a coding agent.', cache_control: E }]);
    assert.deepEqual(out.messages[3]!.content[0]!.cache_control, E);
    assert.deepEqual(out.messages[4]!.content[0]!.cache_control, E);
    assert.equal(countBreakpoints(placed.body), 3);
    assert.equal(countBreakpoints(body), 0, 'the client body is not mutated');
  });

  it('chat body: message-level cache_control on the system message, the boundary and the last message', () => {
    const body = {
      model: 'anthropic/claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'task' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'out' },
      ],
    };
    const out = placeBreakpoints(body, 2).body as { messages: Obj[] };
    assert.deepEqual(
      out.messages.map((m) => m.cache_control),
      [E, undefined, E, E],
    );
  });

  it('keeps every breakpoint the client placed and only adds the boundary, up to 4 in all', () => {
    const body = messagesBody();
    body.system = [{ type: 'text', text: 'sys', cache_control: E }];
    const messages = body.messages as Obj[];
    messages[4] = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't2', content: 'x', cache_control: E }],
    };
    const placed = placeBreakpoints(body, 1);
    assert.equal(placed.client, 2);
    assert.equal(placed.added, 1);
    assert.deepEqual(((placed.body.messages as Obj[])[1]!.content as Obj[])[0]!.cache_control, E);

    const full = messagesBody();
    full.system = [1, 2, 3, 4].map((i) => ({ type: 'text', text: `s${i}`, cache_control: E }));
    const none = placeBreakpoints(full, 1);
    assert.equal(none.added, 0);
    assert.equal(none.body, full);
  });

  it('never marks a thinking block or an empty text', () => {
    const body = messagesBody();
    (body.messages as Obj[]).push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'ok' },
        { type: 'thinking', thinking: 'hm', signature: 's' },
      ],
    });
    const out = placeBreakpoints(body, -1).body.messages as { content: Obj[] }[];
    const last = out[out.length - 1]!.content;
    assert.deepEqual(last[0]!.cache_control, E);
    assert.equal(last[1]!.cache_control, undefined);
  });
});

/** A Messages body of `turns` bash calls; outputs of turns before `maskedBefore` replaced by a placeholder. */
function longSession(turns: number, maskedBefore: number): Obj {
  const messages: Obj[] = [{ role: 'user', content: 'Fix the bug.' }];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${t}`, name: 'bash', input: { t } }] });
    const output = t < maskedBefore ? '[output masked]' : `output of call ${t} `.repeat(50);
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${t}`, content: output }] });
  }
  return { model: 'claude-sonnet-4-5', system: 'You are a coding agent.', messages };
}

/** One block per system text and message block, 2,000 tokens each, keyed by the prefix it ends. */
function blocksOf(body: Obj): PromptBlock[] {
  const contents: { text: string; breakpoint: boolean }[] = [];
  for (const b of body.system as Obj[])
    contents.push({ text: String(b.text), breakpoint: b.cache_control !== undefined });
  for (const m of body.messages as { content: Obj[] | string }[]) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks)
      contents.push({
        text: JSON.stringify({ ...b, cache_control: undefined }),
        breakpoint: b.cache_control !== undefined,
      });
  }
  const keys = chainKeys(contents.map((c) => c.text));
  return contents.map((c, i) => ({ key: keys[i]!, tokens: 2000, breakpoint: c.breakpoint }));
}

describe('the request that moves the rewrite boundary', () => {
  const pricing = cachePricingFor('anthropic', { input_per_mtok: 3, output_per_mtok: 15 });

  it('keeps a breakpoint at the previous boundary, as well as at the new one', () => {
    const placed = placeBreakpoints(messagesBody(), 3, 1);
    assert.equal(placed.added, 4);
    const out = placed.body.messages as { content: Obj[] }[];
    assert.deepEqual(out[1]!.content[0]!.cache_control, E);
    assert.deepEqual(out[3]!.content[0]!.cache_control, E);
  });

  it('reads the cache up to the previous boundary under Anthropic rules, though it lies more than 20 blocks back', () => {
    const cache = new PromptCacheSimulator(pricing, 'rules');
    // Before the rewrite: the boundary breakpoint at the first assistant message (item 1).
    cache.request(blocksOf(placeBreakpoints(longSession(30, 0), 1).body), 0);
    // The rewrite masks the outputs of turns 0–24: the first change is item 2, the new boundary item 51.
    const rewritten = longSession(31, 25);
    const withoutPrevious = new PromptCacheSimulator(pricing, 'rules');
    withoutPrevious.request(blocksOf(placeBreakpoints(longSession(30, 0), 1).body), 0);
    const lost = withoutPrevious.request(blocksOf(placeBreakpoints(rewritten, 51).body), 20_000);
    const kept = cache.request(blocksOf(placeBreakpoints(rewritten, 51, 1).body), 20_000);
    // System, the task and the first call: everything before the first masked output.
    assert.equal(kept.cacheRead, 6000);
    assert.equal(lost.cacheRead, 2000);
  });
});
