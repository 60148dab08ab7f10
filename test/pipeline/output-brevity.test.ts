import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BREVITY_INSTRUCTION, withBrevityInstruction } from '../../src/pipeline/output-brevity.js';

/** The instruction sits at the end of the system prompt in each wire format, the same bytes every turn. */
describe('output brevity instruction', () => {
  it('chat: one system message after the leading system and developer messages', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'developer', content: 'Use bash.' },
        { role: 'user', content: 'Fix the bug.' },
      ],
    };
    const out = withBrevityInstruction(body) as typeof body;
    assert.deepEqual(
      out.messages.map((m) => m.role),
      ['system', 'developer', 'system', 'user'],
    );
    assert.equal(out.messages[2]!.content, BREVITY_INSTRUCTION);
    assert.equal(body.messages.length, 3, 'the input is not modified');
    const bare = withBrevityInstruction({ messages: [{ role: 'user', content: 'Hi' }] }) as typeof body;
    assert.deepEqual(bare.messages[0], { role: 'system', content: BREVITY_INSTRUCTION });
  });

  it('Anthropic Messages: appended to a string system, a text block after block systems, the whole of a missing one', () => {
    assert.equal(
      withBrevityInstruction({ system: 'Be careful.', messages: [] }).system,
      `Be careful.\n\n${BREVITY_INSTRUCTION}`,
    );
    const blocks = [{ type: 'text', text: 'Be careful.', cache_control: { type: 'ephemeral' } }];
    assert.deepEqual(withBrevityInstruction({ system: blocks, messages: [] }).system, [
      ...blocks,
      { type: 'text', text: BREVITY_INSTRUCTION },
    ]);
    assert.equal(withBrevityInstruction({ system: undefined, messages: [] }).system, BREVITY_INSTRUCTION);
  });

  it('OpenAI Responses: appended to instructions', () => {
    assert.equal(withBrevityInstruction({ input: 'Hi' }).instructions, BREVITY_INSTRUCTION);
    assert.equal(
      withBrevityInstruction({ input: 'Hi', instructions: 'Codex rules.' }).instructions,
      `Codex rules.\n\n${BREVITY_INSTRUCTION}`,
    );
  });

  it('a body that already carries it (resent after /v1/compress) is left as it is, in every format', () => {
    for (const body of [
      { messages: [{ role: 'user', content: 'Hi' }] },
      { system: 'S', messages: [] },
      { system: [{ type: 'text', text: 'S' }], messages: [] },
      { input: 'Hi', instructions: 'I' },
    ]) {
      const once = withBrevityInstruction(body);
      assert.deepEqual(withBrevityInstruction(once), once, JSON.stringify(body));
    }
  });
});
