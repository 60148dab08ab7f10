import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { countTextTokens } from '../../src/tokenize/index.js';
import {
  CANONICAL_COUNTED,
  canonicalForwarded,
  refersToStoredFile,
  uncountedMemberTokens,
} from '../../src/pipeline/unseen-prompt.js';

/** What a key with a ceiling pays for beyond the counted prompt (docs/budgets.md, "What the estimate cannot see"). */
describe('uncounted members', () => {
  it('the counted prompt, sampling parameters and gateway members add nothing', async () => {
    const body = {
      model: 'openai/gpt',
      messages: [{ role: 'user', content: 'a long prompt '.repeat(100) }],
      tools: [{ type: 'function', function: { name: 'f' } }],
      max_tokens: 10,
      temperature: 0.2,
      stream: true,
      tags: ['a'],
      gateway_tool_ids: ['x'],
    };
    assert.equal(await uncountedMemberTokens(body, CANONICAL_COUNTED, 'o200k_base'), 0);
  });

  it('a member the count does not read costs at least the tokens of its text', async () => {
    const content = 'predicted output line\n'.repeat(200);
    const tokens = await uncountedMemberTokens(
      { model: 'm', messages: [], prediction: { type: 'content', content }, some_future_member: 'more text' },
      CANONICAL_COUNTED,
      'o200k_base',
    );
    assert.ok(tokens >= countTextTokens(content, 'o200k_base') + countTextTokens('more text', 'o200k_base'));
  });
});

describe('stored files', () => {
  it('a file_id anywhere a file can be sent is found: a part, a source, inside a tool result', () => {
    assert.ok(refersToStoredFile({ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }));
    assert.ok(
      refersToStoredFile({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't',
            content: [{ type: 'image', source: { type: 'file', file_id: 'file-2' } }],
          },
        ],
      }),
    );
  });

  it('text that mentions file_id is not a file', () => {
    assert.equal(refersToStoredFile({ role: 'user', content: 'set "file_id": "file-1" in the config' }), false);
    assert.equal(
      canonicalForwarded({ model: 'm', messages: [{ role: 'user', content: 'file_id' }] }).storedContext.length,
      0,
    );
  });
});
