// The token-count cache holds a text from its second sight on, and the line memo never holds a
// text of one line: a stream of one-off texts (the soak's "Request n: …" prompts) leaves them
// empty, so their memory levels off (issue 31).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clearTokenCache, countTextTokens, tokenCacheStats } from '../../src/tokenize/index.js';
import { Doorkeeper } from '../../src/tokenize/doorkeeper.js';
import { LineCounter } from '../../src/tokenize/line-counter.js';
import type { PieceCounter } from '../../src/tokenize/piece-counter.js';
import { TextTokenCache } from '../../src/tokenize/text-token-cache.js';

describe('Doorkeeper', () => {
  it('says a text was seen on its second offer, and forgets on clear', () => {
    const door = new Doorkeeper(1 << 10);
    assert.equal(door.seenBefore('alpha'), false);
    assert.equal(door.seenBefore('beta'), false);
    assert.equal(door.seenBefore('alpha'), true);
    assert.equal(door.seenBefore('beta'), true);
    door.clear();
    assert.equal(door.seenBefore('alpha'), false);
  });

  it('tells apart texts that differ in one character, long ones at a sampled place included', () => {
    const door = new Doorkeeper();
    let admittedEarly = 0;
    for (let n = 0; n < 5_000; n++)
      if (door.seenBefore(`Request ${n}: summarise the following in one line.`)) admittedEarly++;
    const long = 'x'.repeat(10_000);
    assert.equal(door.seenBefore(long), false);
    assert.equal(door.seenBefore(`${long.slice(0, -1)}y`), false, 'the last character is sampled');
    assert.ok(admittedEarly < 50, `${admittedEarly} of 5,000 distinct texts taken for one seen before`);
  });

  it('refuses a slot count that is not a power of two', () => {
    assert.throws(() => new Doorkeeper(1000), /power of two/);
  });
});

describe('memos behind a doorkeeper', () => {
  it('TextTokenCache stores nothing for texts seen once, and a text from its second sight', () => {
    const cache = new TextTokenCache({ maxChars: 1_000_000, maxEntryChars: 10_000, doorkeeper: new Doorkeeper() });
    let computed = 0;
    const compute = (text: string) => (computed++, text.length);
    for (let n = 0; n < 2_000; n++) cache.count(`Request ${n}: summarise`, 'o200k_base', compute);
    assert.equal(cache.stats().entries, 0);
    for (let i = 0; i < 3; i++) assert.equal(cache.count('You are a terse assistant.', 'o200k_base', compute), 26);
    assert.equal(computed, 2_002, 'computed on the first two sights, a hit on the third');
    assert.equal(cache.stats().entries, 1);
  });

  it('LineCounter holds the lines of a text of several lines from their first sight, never a text of one line', () => {
    const counted: string[] = [];
    const pieces = { count: (line: string) => (counted.push(line), line.length) } as unknown as PieceCounter;
    const lines = new LineCounter(pieces, { maxChars: 1_000_000, minLineChars: 1, maxLineChars: 1_000 });
    const text = 'first line here\nsecond line here';
    for (let i = 0; i < 3; i++) assert.equal(lines.count(text), text.length);
    assert.deepEqual(counted, ['first line here\n', 'second line here']);
    counted.length = 0;
    for (let i = 0; i < 3; i++) assert.equal(lines.count('Request 1: one line'), 19);
    assert.equal(counted.length, 3, "a text of one line is the text cache's to hold");
  });

  it('the shared text memo stays empty under one-off prompts and exact throughout', () => {
    clearTokenCache();
    const counts = new Map<string, number>();
    for (let n = 0; n < 500; n++) {
      const text = `Request ${n}: summarise the following in one line.`;
      counts.set(text, countTextTokens(text, 'o200k_base'));
    }
    assert.equal(tokenCacheStats().entries, 0);
    for (const [text, count] of counts) assert.equal(countTextTokens(text, 'o200k_base'), count);
    // Two texts sharing a slot both wait one more sight (64 Ki slots: a few of 500, never a count).
    assert.ok(tokenCacheStats().entries >= 490, `${tokenCacheStats().entries} of 500 second sights held`);
    clearTokenCache();
  });
});
