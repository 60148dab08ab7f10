// Byte-pair encoding in JavaScript against tiktoken and against a plain reference of its merge
// loop: both merge loops (the scan for short pieces, the queue for long ones) give the same
// counts, and the queue's work grows linearly with the piece.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { bpeQueueSteps, bpeTokenCount, bpeTokenCountWith, QUEUE_FROM_BYTES } from '../../src/tokenize/bpe.js';
import { splitPieces } from '../../src/tokenize/pre-tokenize.js';
import { TOKENIZERS, type TokenizerName } from '../../src/tokenize/index.js';

/** tiktoken's ranks as a Map of Latin-1 strings, read here independently of bpe-ranks.ts. */
const requireModule = createRequire(import.meta.url);
const referenceRanks = new Map<TokenizerName, Map<string, number>>();
function ranksOf(name: TokenizerName): Map<string, number> {
  let ranks = referenceRanks.get(name);
  if (ranks) return ranks;
  const file = requireModule.resolve(`tiktoken/encoders/${name}.json`);
  const { bpe_ranks: table } = JSON.parse(readFileSync(file, 'utf8')) as { bpe_ranks: string };
  ranks = new Map();
  for (const line of table.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 3) continue;
    const first = Number(fields[1]);
    for (let i = 2; i < fields.length; i++) ranks.set(atob(fields[i]!), first + i - 2);
  }
  referenceRanks.set(name, ranks);
  return ranks;
}

/**
 * tiktoken's `byte_pair_merge` as plainly as it can be written: parts as strings, the adjacent
 * pair of lowest rank merged first (the leftmost on a tie) until no pair is a token.
 */
function referenceCount(piece: string, name: TokenizerName): number {
  const ranks = ranksOf(name);
  const latin1 = String.fromCharCode(...new TextEncoder().encode(piece));
  if (latin1.length <= 1 || ranks.has(latin1)) return Math.min(latin1.length, 1);
  const parts = [...latin1];
  for (;;) {
    let best = Infinity;
    let at = -1;
    for (let i = 0; i + 1 < parts.length; i++) {
      const rank = ranks.get(parts[i]! + parts[i + 1]!);
      if (rank !== undefined && rank < best) {
        best = rank;
        at = i;
      }
    }
    if (at < 0) return parts.length;
    parts.splice(at, 2, parts[at]! + parts[at + 1]!);
  }
}

const references = Object.fromEntries(TOKENIZERS.map((name) => [name, get_encoding(name)]));
const tiktokenCount = (piece: string, name: TokenizerName) => references[name]!.encode_ordinary(piece).length;

/** Every merge loop of bpe.ts on `piece`: the default, the queue always, the scan always. */
function allLoops(piece: string, name: TokenizerName): number[] {
  return [bpeTokenCount(piece, name), bpeTokenCountWith(piece, name, 0), bpeTokenCountWith(piece, name, Infinity)];
}

// Runs of one unit, alone or mixed: what makes pieces long (one `\p{L}+`, one blank run).
const unit = fc.constantFrom('a', 'b', 'e', 'A', ' ', '\t', '中', '日', 'é', '😀', '!', '=', '1', '\n', "'", 'ß');
const runs = fc
  .array(fc.tuple(unit, fc.integer({ min: 1, max: 60 })), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.map(([u, n]) => u.repeat(n)).join(''));
const text = fc.oneof(
  runs,
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'ab', 'ba', 'aaa'), maxLength: 80 }),
);

describe('bpeTokenCount', () => {
  for (const tokenizer of TOKENIZERS) {
    it(`${tokenizer}: pieces longer than the kept scratch space, and short ones after them, count as tiktoken counts them`, () => {
      for (const piece of [
        'a'.repeat(5000),
        'abc',
        ' '.repeat(6000),
        'xyz',
        '='.repeat(4500),
        'é'.repeat(3000),
        'naïve',
        'Hello',
      ]) {
        for (const count of allLoops(piece, tokenizer))
          assert.equal(count, tiktokenCount(piece, tokenizer), `${piece.slice(0, 10)}… (${piece.length})`);
      }
    });

    it(`${tokenizer}: adversarial pieces (one repeated character, CJK, emoji, random letters, mixed) count as tiktoken counts them`, () => {
      const randomLetters = Array.from({ length: 6000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join(
        '',
      );
      const texts = [
        'a'.repeat(8191),
        '中'.repeat(3000),
        '😀'.repeat(2000),
        '\u3000'.repeat(2000),
        ' '.repeat(8193),
        '-'.repeat(7000),
        randomLetters,
        'ab'.repeat(3000) + 'é'.repeat(500) + 'z'.repeat(1000),
        'Ab'.repeat(2500),
        String.fromCharCode(...Array.from({ length: 4000 }, (_, i) => 0x4e00 + ((i * 31) % 500))),
      ];
      for (const text of texts) {
        for (const piece of splitPieces(text, tokenizer)) {
          const expected = tiktokenCount(piece, tokenizer);
          for (const count of allLoops(piece, tokenizer))
            assert.equal(count, expected, `${JSON.stringify(piece.slice(0, 12))}… (${piece.length})`);
        }
      }
    });
  }

  it('both merge loops equal a plain reference of the merge loop, and tiktoken, on random pieces', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(...TOKENIZERS), (s, tokenizer) => {
        for (const piece of splitPieces(s, tokenizer)) {
          const expected = referenceCount(piece, tokenizer);
          assert.equal(tiktokenCount(piece, tokenizer), expected, 'the reference is tiktoken');
          assert.deepEqual(allLoops(piece, tokenizer), [expected, expected, expected], JSON.stringify(piece));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('merges a long piece with work linear in its length (10 MB of one character)', () => {
    // The full merge (runs of one unit this long are otherwise counted from their period).
    const work = (piece: string, tokenizer: TokenizerName) => {
      const before = bpeQueueSteps();
      bpeTokenCountWith(piece, tokenizer, QUEUE_FROM_BYTES);
      return bpeQueueSteps() - before;
    };
    const mib = 1024 * 1024;
    for (const tokenizer of TOKENIZERS) {
      for (const [unitChar, bytesPerChar] of [
        ['a', 1],
        [' ', 1],
        ['中', 3],
        ['😀', 4],
      ] as const) {
        const small = work(unitChar.repeat(mib / bytesPerChar), tokenizer);
        const large = work(unitChar.repeat((4 * mib) / bytesPerChar), tokenizer);
        // A quadratic loop would grow 16×; the queue's work per byte is a small constant.
        assert.ok(large / small < 4.5, `${tokenizer} ${unitChar}: 1 MiB ${small} steps, 4 MiB ${large}`);
        assert.ok(large < 8 * 4 * mib, `${tokenizer} ${unitChar}: ${large} steps for 4 MiB`);
      }
    }
    // The whole 10 MB run, once: timed for the log, bounded only far above the expected ~1 s.
    const started = performance.now();
    const count = bpeTokenCount('a'.repeat(10 * 1000 * 1000), 'cl100k_base');
    const ms = performance.now() - started;
    console.log(`10 MB of 'a': ${count} tokens in ${ms.toFixed(0)} ms`);
    assert.equal(count, 1_250_000);
    assert.ok(ms < 20_000, `${ms} ms`);
  });
});
