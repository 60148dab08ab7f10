import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergePendingOperation } from '../../src/gateway-tools/resume.js';
import type { PendingOperation } from '../../src/gateway-tools/pending-operations.js';
import type { ChatMessage, ToolCall } from '../../src/canonical/chat-request.js';

const call = (id: string, name: string): ToolCall => ({ id, type: 'function', function: { name, arguments: '{}' } });
const operation: PendingOperation = {
  id: 'gwp_x',
  organizationId: 'o',
  apiKeyId: 'k',
  createdAt: 0,
  expiresAt: 1,
  toolCalls: [
    call('g1', 'gateway_current_time'),
    call('c1', 'get_weather'),
    call('g2', 'gateway_calculator'),
    call('c2', 'send_mail'),
  ],
  gatewayResults: [
    { tool_call_id: 'g1', name: 'gateway_current_time', content: '{"utc":"now"}' },
    { tool_call_id: 'g2', name: 'gateway_calculator', content: '{"result":4}' },
  ],
};

describe('merging a pending operation into the history', () => {
  const history: ChatMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'get_weather'), call('c2', 'send_mail')] },
    { role: 'tool', tool_call_id: 'c2', content: 'sent' },
    { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
  ];

  it('puts every call back in the model order, each followed by its result in that order', () => {
    const merged = mergePendingOperation(history, operation)!;
    assert.deepEqual(
      merged[1]!.tool_calls!.map((c) => c.id),
      ['g1', 'c1', 'g2', 'c2'],
    );
    assert.deepEqual(
      merged.slice(2).map((m) => [m.tool_call_id, m.content]),
      [
        ['g1', '{"utc":"now"}'],
        ['c1', 'sunny'],
        ['g2', '{"result":4}'],
        ['c2', 'sent'],
      ],
    );
    assert.equal(merged[0]!.content, 'go');
  });

  it('is idempotent and keeps later messages in place', () => {
    const later: ChatMessage[] = [
      ...history,
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'more' },
    ];
    const once = mergePendingOperation(later, operation)!;
    const twice = mergePendingOperation(once, operation)!;
    assert.deepEqual(twice, once);
    assert.deepEqual(
      once.slice(-2).map((m) => m.content),
      ['done', 'more'],
    );
    assert.equal(once.length, later.length + 2);
  });

  it('returns undefined when no assistant message carries the client calls', () => {
    assert.equal(mergePendingOperation([{ role: 'user', content: 'hi' }], operation), undefined);
  });
});
