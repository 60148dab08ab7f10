// normalize's loops stand in for regexes that were slow on indented text: same output, always.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isProgressLine, normalize, stripTrailingBlanks } from '../../src/compress/filters/normalize.js';

/** normalize as it was written with regexes only (the reference). */
function normalizeByRegex(text: string): string {
  let t = normalize(text, { fileContent: true }); // escapes and carriage returns only
  t = t.replace(/[ \t]+$/gm, '');
  const lines = t.split('\n');
  const kept = lines.filter((l) => !isProgressLine(l));
  if (kept.length !== lines.length) t = kept.join('\n');
  return t.replace(/\n{4,}/g, '\n\n\n');
}

const fragment = fc.constantFrom(
  ' ',
  '  ',
  '\t',
  ' \t ',
  '\n',
  '\n\n\n\n',
  '\r\n',
  '\r',
  '\u2028',
  '\u2029',
  'x',
  'def f():',
  '    return 1',
  ' 45%|████▌     |',
  '[=====>    ]',
  '3.2 MB/s',
  '  -  ',
  '⠋',
  'error 50%',
  'Dload  Upload',
  '\x1b[31m',
  '--:--:--',
);
const text = fc.oneof(
  fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join('')),
  fc.string({ maxLength: 80 }),
);

describe('normalize', () => {
  it('strips blanks at line ends exactly as /[ \\t]+$/gm does', () => {
    fc.assert(
      fc.property(text, (t) => assert.equal(stripTrailingBlanks(t), t.replace(/[ \t]+$/gm, ''))),
      { numRuns: 2000 },
    );
  });

  it('gives the output of its regex-only form', () => {
    fc.assert(
      fc.property(text, (t) => assert.equal(normalize(t, { fileContent: false }), normalizeByRegex(t))),
      { numRuns: 2000 },
    );
  });
});
