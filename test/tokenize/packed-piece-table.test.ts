// The packed table holds pieces as integers; a lookup must find exactly the piece stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PackedPieceTable } from '../../src/tokenize/packed-piece-table.js';

/** Counts by a fake encoder that numbers pieces in order of first sight. */
function numbering() {
  const seen = new Map<string, number>();
  const encode = (piece: string) => {
    if (!seen.has(piece)) seen.set(piece, seen.size + 1);
    return seen.get(piece)!;
  };
  return { seen, encode };
}

describe('PackedPieceTable', () => {
  it('tells apart pieces that differ only in a late character, in length or by NUL characters', () => {
    const table = new PackedPieceTable(16, 1024);
    const { encode } = numbering();
    const pieces = [
      'ab',
      'abc',
      'abcd',
      'abcde',
      'abcdefgh',
      'abcdefgi',
      'abcdefghijkl',
      'abcdefghijkm',
      'a\0',
      'a\0\0',
      '\0\0',
      '\x7f\x7f',
    ];
    const first = pieces.map((p) => table.count(`<${p}>`, 1, 1 + p.length, encode));
    assert.deepEqual(
      first,
      pieces.map((_, i) => i + 1),
    );
    // Found again without encoding, whatever surrounds them.
    const again = pieces.map((p) =>
      table.count(`xyz${p}`, 3, 3 + p.length, () => assert.fail(`encoded ${JSON.stringify(p)} twice`)),
    );
    assert.deepEqual(again, first);
    assert.equal(table.entries, pieces.length);
  });

  it('leaves non-ASCII pieces to the caller', () => {
    const table = new PackedPieceTable(16, 1024);
    assert.equal(
      table.count('café', 0, 4, () => assert.fail('encoded')),
      -1,
    );
    assert.equal(table.entries, 0);
  });

  it('grows up to its bound, then starts over, and keeps counting right', () => {
    const table = new PackedPieceTable(16, 64);
    const { encode, seen } = numbering();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 500; i++) {
        const piece = `p${i}`;
        assert.equal(table.count(piece, 0, piece.length, encode), seen.get(piece) ?? seen.size + 1);
        assert.ok(table.entries <= 32);
      }
    }
  });
});
