import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
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
