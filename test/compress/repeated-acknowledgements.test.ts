// First sight: a short output equal to the previous output of the same tool (TodoWrite's
// acknowledgement after every call) is named by the tool instead of repeated.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compressPayload } from '../../src/compress/index.js';
import { build, outputs, type Dialogue } from './helpers/build.js';

const ACK =
  'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable';

const todo = (id: string, output = ACK) => ({
  assistant: 'Updating the plan.',
  calls: [{ id, name: 'TodoWrite', args: { todos: [{ content: id, status: 'pending' }] }, output }],
});
const bash = (id: string, output: string) => ({
  assistant: 'Running it.',
  calls: [{ id, name: 'Bash', args: { command: 'echo' }, output }],
});

describe('repeated acknowledgements', () => {
  const dialogue: Dialogue = {
    system: 'You are a coding agent.',
    task: 'Fix the bug.',
    turns: [todo('t1'), bash('b1', ACK), todo('t2'), todo('t3', 'Todos cleared.'), todo('t4'), todo('t5')],
  };
  const out = outputs(compressPayload(build(dialogue, 'messages'), { bundle: 'claude' }).body);

  it('the first acknowledgement stays, the same one again names the tool', () => {
    assert.equal(out.get('t1'), ACK);
    assert.equal(out.get('t2'), '[Same as the previous TodoWrite output.]');
    assert.equal(out.get('t5'), '[Same as the previous TodoWrite output.]');
  });

  it('only the previous output of the same tool counts', () => {
    assert.equal(out.get('b1'), ACK, 'another tool printed the same text');
    assert.equal(out.get('t4'), ACK, 'the previous TodoWrite output was different');
  });

  it('compressing twice equals compressing once', () => {
    const once = compressPayload(build(dialogue, 'messages'), { bundle: 'claude' }).body;
    assert.deepEqual(compressPayload(once, { bundle: 'claude' }).body, once);
  });
});
