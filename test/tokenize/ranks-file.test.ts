import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeRanks, encodeRanks, ranksFromTiktoken } from '../../src/tokenize/ranks-file.js';
import { TOKENIZERS } from '../../src/tokenize/tokenizer-names.js';

/**
 * The merge ranks are read from a binary file made at build time (ranks-file.ts). Counts depend
 * on every rank, so the file must hold exactly the tables built from tiktoken's own table; the
 * corpus tests (count-text-corpus.test.ts) then compare counts with tiktoken itself.
 */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function built(name: string): string | undefined {
  const file = join(REPO_ROOT, 'dist', 'ranks', `${name}.bin`);
  return existsSync(file) ? file : undefined;
}

describe('ranks files', () => {
  for (const name of TOKENIZERS) {
    const fromTiktoken = ranksFromTiktoken(name);
    const encoded = encodeRanks(fromTiktoken);

    it(`${name}: a ranks file decodes to the tables built from tiktoken's table`, () => {
      const decoded = decodeRanks(encoded).toTables();
      const built = fromTiktoken.toTables();
      for (const key of Object.keys(built) as (keyof typeof built)[]) assert.deepEqual(decoded[key], built[key], key);
      const bytes = new TextEncoder().encode('hello world, tokenizers');
      for (let end = 1; end <= bytes.length; end++)
        assert.equal(decodeRanks(encoded).rank(bytes, 0, end), fromTiktoken.rank(bytes, 0, end));
    });

    it(`${name}: the built file (npm run build) is the one tiktoken's table gives`, { skip: !built(name) }, () => {
      assert.ok(Buffer.from(encoded).equals(readFileSync(built(name)!)), `dist/ranks/${name}.bin is stale: rebuild`);
    });
  }

  it('refuses a file that is not a ranks file', () => {
    assert.throws(() => decodeRanks(new TextEncoder().encode('{"bpe_ranks": "not this"}')), /not a ranks file/);
  });
});
