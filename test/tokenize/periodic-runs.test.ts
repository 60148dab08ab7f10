import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bpeQueueSteps, bpeTokenCount, bpeTokenCountWith, QUEUE_FROM_BYTES } from '../../src/tokenize/bpe.js';
import { repeatedUnit } from '../../src/tokenize/periodic-runs.js';
import { countTextTokens } from '../../src/tokenize/index.js';
import type { TokenizerName } from '../../src/tokenize/tokenizer-names.js';

const ENCODINGS: TokenizerName[] = ['o200k_base', 'cl100k_base'];
/** The full merge, never the periodic shortcut. */
const exact = (piece: string, name: TokenizerName) => bpeTokenCountWith(piece, name, QUEUE_FROM_BYTES);

const UNITS = [
  'a',
  'x',
  'Z',
  ' ',
  '\t',
  '\n',
  '=',
  '-',
  '.',
  '0',
  '9',
  '中',
  'é',
  '😀',
  'ß',
  '\u200b',
  '—',
  'ab',
  'aA',
  '0 ',
  '. ',
  '//',
  '\r\n',
  'abc',
  'ab ',
  '=-',
  'xyz1',
  '中a',
  '😀!',
];

describe('long runs of one unit counted from their period', () => {
  it('finds the shortest unit a piece repeats, and none in a piece that does not repeat one', () => {
    assert.equal(repeatedUnit('aaaa'), 'a');
    assert.equal(repeatedUnit('abababab'), 'ab');
    assert.equal(repeatedUnit('😀😀😀'), '😀');
    assert.equal(repeatedUnit('aaab'), undefined);
    assert.equal(repeatedUnit('abcdeabcde'), undefined);
  });

  for (const name of ENCODINGS) {
    it(`equals the full merge on runs of 20 kinds of unit, at lengths past the shortcut's threshold (${name})`, () => {
      for (const unit of UNITS) {
        for (const units of [1_048_577, 1_050_000 + unit.charCodeAt(0)]) {
          const piece = unit.repeat(Math.ceil(units / unit.length));
          assert.equal(bpeTokenCount(piece, name), exact(piece, name), `${JSON.stringify(unit)} × ${units} (${name})`);
        }
      }
    });

    it(`equals the full merge on random units and lengths (${name})`, () => {
      const char = fc.constantFrom(
        'a',
        'b',
        'q',
        'A',
        ' ',
        '\t',
        '\n',
        '中',
        'é',
        '😀',
        '!',
        '=',
        '1',
        '0',
        "'",
        '-',
        '_',
      );
      fc.assert(
        fc.property(
          fc.array(char, { minLength: 1, maxLength: 3 }),
          fc.integer({ min: 1_048_576, max: 1_200_000 }),
          (chars, chars_) => {
            const unit = chars.join('');
            const piece = unit.repeat(Math.ceil(chars_ / unit.length));
            return bpeTokenCount(piece, name) === exact(piece, name);
          },
        ),
        { numRuns: 12, seed: 1206 },
      );
    });
  }

  it('counts 10 MB of one letter with a few thousand merge steps, not millions', () => {
    const before = bpeQueueSteps();
    assert.equal(countTextTokens('a'.repeat(10_000_000), 'o200k_base'), 1_250_000);
    assert.ok(bpeQueueSteps() - before < 2_000_000, `${bpeQueueSteps() - before} queue steps`);
  });
});
