// Deterministic corpus of varied strings for the exactness tests (no test cases in here).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { TRAJECTORY_DIR } from '../fixtures/trajectories.js';

/** mulberry32: a seeded PRNG, so every run tests the same strings. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'the',
  'token',
  'gateway',
  'Hello',
  'WORLD',
  "don't",
  "it's",
  'naïve',
  'café',
  'über',
  'x',
  'a1b2',
  'self.value',
  '__init__',
  'http://example.com/a?b=c',
  'foo_bar',
  'CamelCase',
  'I',
  "we'll",
  '—',
  '…',
];
const UNICODE = [
  '日本語のテキスト',
  '中文分词测试',
  '한국어 문장',
  'Привет, мир',
  'مرحبا بالعالم',
  'नमस्ते दुनिया',
  'שלום',
  'Ελληνικά',
  '😀',
  '👨‍👩‍👧‍👦',
  '🇫🇷',
  '👍🏽',
  'e\u0301',
  'ﬁ',
  '\u200b',
  '\u00a0',
  '\ufeff',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '𠜎𠜱',
  'ä̈̈',
];
const CODE = [
  'def f(x):\n    return x * 2\n',
  'const a = { b: [1, 2, 3], c: "d" };',
  'for (let i = 0; i < n; i++) {\n\tsum += arr[i];\n}',
  '{"role": "user", "content": "hi"}',
  '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); }',
  'SELECT * FROM users WHERE id = $1;',
  '   123:     if value is None:\r\n',
  '@@ -1,4 +1,5 @@\n-old line\n+new line\n',
  '$ ls -la /tmp && echo "done"',
  '<div class="x">&amp;</div>',
];
const SPECIAL = [
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
  '<|fim_prefix|>',
  '<|fim_middle|>',
  '<|fim_suffix|>',
  '<|endofprompt|>',
  '<|start|>',
  '<|message|>',
  '<|',
  '|>',
  '<|endoftext',
];
const SPACES = [' ', '  ', '    ', '\t', '\n', '\n\n', '\r\n', '\r\n\r\n', '\r', ' \n ', '\u3000', '\t\t  \n'];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function build(rand: () => number, pieces: number, choose: () => string): string {
  let out = '';
  for (let i = 0; i < pieces; i++) out += choose();
  return out;
}

function number(rand: () => number): string {
  const digits = 1 + Math.floor(rand() * 25);
  let n = '';
  for (let i = 0; i < digits; i++) n += String(Math.floor(rand() * 10));
  const forms = [n, `${n}.${n.slice(0, 3)}`, `-${n}`, `${n},${n.slice(0, 3)}`, `0x${n}`, `${n}e-7`, `v${n}.${digits}`];
  return pick(rand, forms);
}

function trajectoryContents(): string[] {
  const contents: string[] = [];
  for (const name of readdirSync(TRAJECTORY_DIR)
    .filter((n) => n.endsWith('.traj'))
    .sort()) {
    const file = JSON.parse(readFileSync(join(TRAJECTORY_DIR, name), 'utf8')) as { history: { content?: unknown }[] };
    for (const message of file.history) if (typeof message.content === 'string') contents.push(message.content);
  }
  return contents;
}

export interface CorpusEntry {
  kind: string;
  text: string;
}

export function buildCorpus(): CorpusEntry[] {
  const rand = random(20240611);
  const corpus: CorpusEntry[] = [];
  const add = (kind: string, count: number, make: () => string) => {
    for (let i = 0; i < count; i++) corpus.push({ kind, text: make() });
  };
  add('ascii', 120, () =>
    build(rand, 1 + Math.floor(rand() * 40), () => pick(rand, WORDS) + pick(rand, [' ', ' ', ', ', '. ', '\n', ''])),
  );
  add('unicode', 120, () => build(rand, 1 + Math.floor(rand() * 20), () => pick(rand, [...UNICODE, ...WORDS, ' '])));
  add('code', 100, () => build(rand, 1 + Math.floor(rand() * 8), () => pick(rand, CODE)));
  add('whitespace', 100, () =>
    build(rand, 1 + Math.floor(rand() * 30), () => pick(rand, [...SPACES, ...SPACES, 'a', 'if'])),
  );
  add('crlf', 60, () =>
    build(rand, 1 + Math.floor(rand() * 15), () => pick(rand, WORDS) + pick(rand, ['\r\n', '\r\n\r\n', ' \r\n', '\r'])),
  );
  add('numbers', 100, () =>
    build(rand, 1 + Math.floor(rand() * 10), () => number(rand) + pick(rand, [' ', '', '\n', ', '])),
  );
  add('special-tokens', 100, () =>
    build(rand, 1 + Math.floor(rand() * 12), () => pick(rand, [...SPECIAL, ...WORDS, ' ', '\n'])),
  );
  add('code-points', 60, () =>
    build(rand, 1 + Math.floor(rand() * 40), () => String.fromCodePoint(Math.floor(rand() * 0x2ffff) % 0xd800)),
  );
  const contents = trajectoryContents();
  for (const text of contents) corpus.push({ kind: 'trajectory', text });
  // Cuts at arbitrary offsets: mid-word, mid-CRLF, mid-number, even between a surrogate pair.
  add('trajectory-slice', 300, () => {
    const text = pick(rand, contents);
    const start = Math.floor(rand() * text.length);
    return text.slice(start, start + 1 + Math.floor(rand() * 2000));
  });
  corpus.push(
    { kind: 'edge', text: '' },
    { kind: 'edge', text: ' '.repeat(10_000) },
    { kind: 'edge', text: '9'.repeat(5_000) },
  );
  return corpus;
}
