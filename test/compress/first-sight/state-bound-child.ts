// Run by state-bound.test.ts under a capped heap: compresses distinct conversations of the soak's
// shape (a grep output of 60 lines, a new call id each) and prints what the first-sight states hold.
import { getHeapStatistics } from 'node:v8';
import { compressPayload } from '../../../src/compress/index.js';
import { firstSightStatesHeld } from '../../../src/compress/first-sight/first-sight.js';

const conversations = Number(process.argv[2] ?? 4000);
const output = Array.from(
  { length: 60 },
  (_, i) => `src/module${i % 7}/file${i}.ts:${i + 1}: const value${i} = compute(${i});`,
).join('\n');
let peak = 0;
for (let n = 0; n < conversations; n++) {
  compressPayload({
    model: 'openai/gpt-4o-mini',
    compression_model: 'codex',
    messages: [
      { role: 'user', content: `Request ${n}: summarise the following in one line.` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `call_${n}`, type: 'function', function: { name: 'grep', arguments: '{"pattern":"compute"}' } },
        ],
      },
      { role: 'tool', tool_call_id: `call_${n}`, content: output },
    ],
  });
  peak = Math.max(peak, firstSightStatesHeld().bytes);
}
process.stdout.write(
  `${JSON.stringify({ ...firstSightStatesHeld(), peak, heapLimit: getHeapStatistics().heap_size_limit, heapUsed: process.memoryUsage().heapUsed })}\n`,
);
