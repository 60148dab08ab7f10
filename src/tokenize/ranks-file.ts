import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MergeRanks, MergeRanksBuilder, type RankTables } from './bpe-ranks.js';
import { TOKENIZERS, type TokenizerName } from './tokenizer-names.js';

/**
 * The merge ranks' tables in a binary file, made at build time (`npm run build` writes
 * dist/ranks/<name>.bin) from the table tiktoken ships (`encoders/<name>.json`: lines of base64
 * tokens). Building the tables from that JSON cost a 2.3 MB parse, a split into 200k strings, a
 * base64 decode and a hash insertion each: ~130–220 ms under the first big count after a start
 * (on the pool thread, which is new then too). The file holds the tables as they are in memory:
 * one read, and typed arrays over its bytes (docs/tokenizers.md, "Loading the ranks").
 *
 * Layout, little-endian: "GWR2", then u32 maxTokenBytes, rankLimit and the lengths of the
 * sections, then the sections: slots, pairs, longTokens, longSlots (i32) and longBytes (u8).
 */
const MAGIC = 0x32525747; // "GWR2" read as a little-endian u32
const HEADER_INTS = 8;

/** dist/ranks/ from dist/<folder>/, dist/bundle/ and src/tokenize/ alike. */
const RANKS_DIR = fileURLToPath(new URL('../../dist/ranks/', import.meta.url));
const requireModule = createRequire(import.meta.url);
const loaded = new Map<TokenizerName, MergeRanks>();

/** The merge ranks of `name`, loaded on first use: from the built file, else from tiktoken's table. */
export function mergeRanks(name: TokenizerName): MergeRanks {
  let ranks = loaded.get(name);
  if (!ranks) {
    const file = join(RANKS_DIR, `${name}.bin`);
    // Typed arrays over the file's bytes read in the platform's order, which the file is not on
    // a big-endian machine.
    ranks = existsSync(file) && endianness() === 'LE' ? decodeRanks(readFileSync(file)) : ranksFromTiktoken(name);
    loaded.set(name, ranks);
  }
  return ranks;
}

/** The ranks tiktoken ships for `name` (`<prefix> <first rank> <base64 token> …` per line). */
export function ranksFromTiktoken(name: TokenizerName): MergeRanks {
  const file = requireModule.resolve(`tiktoken/encoders/${name}.json`);
  const { bpe_ranks: table } = JSON.parse(readFileSync(file, 'utf8')) as { bpe_ranks: string };
  const lines = table
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields.length >= 3);
  const builder = new MergeRanksBuilder(lines.reduce((n, fields) => n + fields.length - 2, 0));
  for (const fields of lines) {
    const first = Number(fields[1]);
    for (let i = 2; i < fields.length; i++) {
      const token = Buffer.from(fields[i]!, 'base64');
      builder.add(token, 0, token.length, first + i - 2);
    }
  }
  return builder.build();
}

export function encodeRanks(ranks: MergeRanks): Uint8Array {
  const t = ranks.toTables();
  const ints = [t.slots, t.pairs, t.longTokens, t.longSlots];
  const header = new Int32Array(HEADER_INTS);
  header.set([MAGIC, t.maxTokenBytes, t.rankLimit, ...ints.map((a) => a.length), t.longBytes.length]);
  const out = Buffer.alloc((HEADER_INTS + ints.reduce((n, a) => n + a.length, 0)) * 4 + t.longBytes.length);
  let at = 0;
  for (const section of [header, ...ints]) {
    for (let i = 0; i < section.length; i++) out.writeInt32LE(section[i]!, at + i * 4);
    at += section.length * 4;
  }
  out.set(t.longBytes, at);
  return out;
}

export function decodeRanks(file: Uint8Array): MergeRanks {
  // Int32Array views need a 4-byte aligned start; a big file read is one of its own, at 0.
  const bytes = file.byteOffset % 4 === 0 ? file : new Uint8Array(file);
  if (bytes.length < HEADER_INTS * 4) throw new Error('not a ranks file');
  const header = new Int32Array(bytes.buffer, bytes.byteOffset, HEADER_INTS);
  if (header[0] !== MAGIC) throw new Error('not a ranks file');
  let at = bytes.byteOffset + HEADER_INTS * 4;
  const section = (length: number) => {
    const view = new Int32Array(bytes.buffer, at, length);
    at += length * 4;
    return view;
  };
  const tables: RankTables = {
    maxTokenBytes: header[1]!,
    rankLimit: header[2]!,
    slots: section(header[3]!),
    pairs: section(header[4]!),
    longTokens: section(header[5]!),
    longSlots: section(header[6]!),
    longBytes: new Uint8Array(bytes.buffer, at, header[7]!),
  };
  return new MergeRanks(tables);
}

/** Writes every tokenizer's ranks file into `dir` (scripts/build-server.mjs). */
export function writeRanksFiles(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const name of TOKENIZERS) writeFileSync(join(dir, `${name}.bin`), encodeRanks(ranksFromTiktoken(name)));
}
