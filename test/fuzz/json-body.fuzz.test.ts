import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { checkJsonText, JsonBodyRejection, parseJsonText } from '../../src/server/json-body.js';
import { SEED, runs, HOSTILE_JSON_TEXTS } from './arbitraries.js';

/**
 * The body parser every listener uses (src/server/json-body.ts): its scan before JSON.parse
 * must agree with JSON.parse on every text, refuse exactly the values nested deeper than the
 * limit and the numbers a double cannot hold, and never throw anything else. The corpus
 * (corpus/json-body.json: texts that are hard to scan) is replayed first.
 */
const options = { numRuns: runs(400), seed: SEED, endOnFailure: true, includeErrorInReport: true };
const CORPUS = join(dirname(fileURLToPath(import.meta.url)), 'corpus', 'json-body.json');

/** Depth of a parsed value, as the scan counts it: each array or object is one level. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') {
      deepest = Math.max(deepest, depth);
      continue;
    }
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** What the parser must do with `text` at `limit`, derived from JSON.parse alone. */
function expectedOutcome(text: string, limit: number): 'syntax' | 'depth' | 'number' | 'ok' {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'syntax';
  }
  if (depthOf(value) > limit) return 'depth';
  const nonFinite = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'number' && !Number.isFinite(v) ? '\u0000overflow' : v,
  );
  return nonFinite.includes('\\u0000overflow') ? 'number' : 'ok';
}

function assertAgrees(text: string, limit: number, what: string): void {
  const expected = expectedOutcome(text, limit);
  let outcome: string;
  let value: unknown;
  try {
    value = parseJsonText(text, limit);
    outcome = 'ok';
  } catch (error) {
    if (error instanceof SyntaxError) outcome = 'syntax';
    else if (error instanceof JsonBodyRejection) outcome = /levels deep/.test(error.message) ? 'depth' : 'number';
    else throw new Error(`${what}: threw ${(error as Error)?.constructor?.name}: ${(error as Error)?.message}`);
  }
  // A text that is not JSON may still be refused for its depth or a number first: both are 400s.
  if (expected === 'syntax') assert.notEqual(outcome, 'ok', `${what}: accepted text JSON.parse refuses`);
  else assert.equal(outcome, expected, what);
  if (outcome === 'ok') assert.deepEqual(value, JSON.parse(text, withoutPrototypeKeys), what);
}

/** The parser drops prototype-poisoning keys: `__proto__`, and `constructor` holding a `prototype`. */
function withoutPrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') return undefined;
  if (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value) return undefined;
  return value;
}

/** JSON texts whose strings are full of what a scanner trips on: quotes, backslashes, brackets. */
const trickyString = fc.oneof(
  fc.string(),
  fc
    .array(fc.constantFrom('"', '\\', '[', ']', '{', '}', 'e', '-', '1', ' ', '\\"', '\\\\'), { maxLength: 12 })
    .map((parts) => parts.join('')),
);
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.constantFrom(0, -0, 1e308, -1.7976931348623157e308, 5e-324),
);
const { value: jsonValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 3 }),
  ),
}));
/** A value wrapped in n arrays or objects, so depths around every limit are reached. */
const nested = fc
  .tuple(jsonValue, fc.array(fc.boolean(), { maxLength: 80 }))
  .map(([inner, wrappers]) => wrappers.reduce<unknown>((v, asArray) => (asArray ? [v] : { k: v }), inner));
/** Number literals JSON.stringify never writes: exponents, long digit runs, overflow. */
const literal = fc.oneof(
  fc
    .tuple(fc.integer({ min: -400, max: 400 }), fc.constantFrom('1', '-1', '9.99', '0.5'))
    .map(([exp, mantissa]) => `${mantissa}e${exp}`),
  fc.constantFrom('1E+400', '-1e999', '1e308', '1.8e308', '1.7976931348623157e308', '1e-400', '-0', '0e0'),
  fc.integer({ min: 1, max: 500 }).map((n) => '9'.repeat(n)),
);

describe(`JSON body parser on arbitrary texts (seed ${SEED})`, () => {
  it('replays the corpus and the hostile bodies of the route suites', () => {
    const cases = (JSON.parse(readFileSync(CORPUS, 'utf8')) as { cases: Array<{ note: string; text: string }> }).cases;
    for (const { note, text } of cases) for (const limit of [1, 2, 8, 64]) assertAgrees(text, limit, note);
    for (const text of HOSTILE_JSON_TEXTS) assertAgrees(text, 64, text.slice(0, 60));
  });

  it('agrees with JSON.parse on every serialised value, refusing exactly those deeper than the limit', () => {
    fc.assert(
      fc.property(nested, fc.integer({ min: 1, max: 70 }), fc.boolean(), (value, limit, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        assertAgrees(text, limit, `${text.slice(0, 200)} at ${limit}`);
      }),
      options,
    );
  });

  it('refuses exactly the number literals a double cannot hold', () => {
    fc.assert(
      fc.property(literal, fc.constantFrom('%', '[%]', '{"n":%}', '[1,{"a":[%]}]'), (n, shape) => {
        const text = shape.replace('%', n);
        assertAgrees(text, 64, text);
      }),
      options,
    );
  });

  it('any text at all: the outcome is JSON.parse’s, or a refusal, never another exception', () => {
    const text = fc.oneof(
      fc.string(),
      // Any code point, lone surrogates included (fast-check's 'binary' unit takes seconds to build).
      fc.string({ unit: fc.integer({ min: 0, max: 0x10ffff }).map((n) => String.fromCodePoint(n)) }),
      fc
        .array(fc.constantFrom('[', ']', '{', '}', '"', '\\', ':', ',', '1', 'e', '-', '1e400', 'true', ' '), {
          maxLength: 60,
        })
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 10 }), (t, limit) => assertAgrees(t, limit, JSON.stringify(t))),
      options,
    );
  });

  it('the scan never recurses: a million levels are refused without a stack overflow', () => {
    assert.throws(() => checkJsonText('['.repeat(1_000_000), 64), JsonBodyRejection);
    assert.doesNotThrow(() => checkJsonText('['.repeat(1_000_000), 2_000_000));
  });
});
