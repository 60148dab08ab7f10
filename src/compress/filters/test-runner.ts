// pytest, jest/vitest, go test, cargo test, mocha…: passing tests are noise once the run is
// over; failures, tracebacks and the summary are what the agent acts on.
import { errorMask } from './error-lines.js';
import { removedRoutine } from './markers.js';

const PASSING: RegExp[] = [
  /^\S+::\S+ PASSED\b/, // pytest -v
  /^\S+\.py [.sxX]+\s*(?:\[\s*\d+%\])?$/, // pytest progress rows without F/E
  /^[.sxX]{4,}\s*(?:\[\s*\d+%\])?$/,
  /^\s*[✓✔√] /, // jest, vitest, mocha
  /^=== (?:RUN|PAUSE|CONT)\s/, // go test -v
  /^\s*--- PASS: /,
  /^test \S+ \.\.\. ok$/, // cargo test
  /^PASS\s+\S/, // jest file header of a green file
  /^\s*ok\s+\d+\s/, // TAP
];
const BOILERPLATE: RegExp[] = [/^cachedir: /, /^plugins: /, /^collecting \.\.\./];

export function filterTestOutput(text: string): string {
  const lines = text.split('\n');
  const mask = errorMask(lines, text);
  const out: string[] = [];
  let removed = 0;
  let at = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!mask[i] && (PASSING.some((re) => re.test(line)) || BOILERPLATE.some((re) => re.test(line)))) {
      if (at < 0) at = out.length;
      removed++;
      continue;
    }
    out.push(line);
  }
  if (removed < 2) return text;
  out.splice(at, 0, removedRoutine(`${removed} passing-test and progress lines`));
  return out.join('\n');
}
