import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ChunkFramer, formatChunk, type ChunkDelta } from '../../src/gateway/chat/completion-format.js';
import { sseData } from '../../src/pipeline/sse-writer.js';

describe('ChunkFramer', () => {
  it('frames a delta to the same bytes as serialising the whole chunk', () => {
    fc.assert(
      fc.property(
        fc.record({ id: fc.string(), created: fc.nat(), model: fc.string() }),
        fc.record(
          {
            role: fc.constant('assistant' as const),
            content: fc.string({ unit: 'grapheme' }),
            refusal: fc.string(),
            tool_calls: fc.array(
              fc.record({
                index: fc.nat(),
                id: fc.string(),
                function: fc.record({ name: fc.string(), arguments: fc.string() }),
              }),
              { maxLength: 2 },
            ),
          },
          { requiredKeys: [] },
        ),
        (identity, delta) => {
          assert.equal(
            new ChunkFramer(identity).delta(delta as ChunkDelta),
            sseData(formatChunk(identity, delta as ChunkDelta, null)),
          );
        },
      ),
    );
  });

  it('frames the finish chunk to the same bytes as serialising the whole chunk', () => {
    const identity = { id: 'chatcmpl-x', created: 1_700_000_000, model: 'openai/gpt-4o-mini' };
    for (const reason of ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const) {
      assert.equal(new ChunkFramer(identity).finish(reason), sseData(formatChunk(identity, {}, reason)));
    }
  });

  it('frames a content-only delta to the same bytes as serialising the whole chunk', () => {
    fc.assert(
      fc.property(
        fc.record({ id: fc.string(), created: fc.nat(), model: fc.string() }),
        fc.string({ unit: 'grapheme' }),
        (identity, content) => {
          assert.equal(new ChunkFramer(identity).content(content), sseData(formatChunk(identity, { content }, null)));
        },
      ),
    );
  });
});
