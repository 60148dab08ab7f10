// Compilers and linters: progress rows go, and a warning repeated across many sites is kept
// a few times with a count (the fix is usually the same everywhere). Errors all stay: no error
// line of an output is ever dropped.
import { isErrorLine } from './error-lines.js';
import { removedRoutine } from './markers.js';

const PROGRESS =
  /^\s*(?:Compiling|Checking|Fresh|Blocking waiting|Documenting) \S+ v?\d|^\s*\[\s*\d+\/\d+\]\s|^make\[\d+\]: (?:Entering|Leaving) directory/;
// `src/a.ts(3,5): error TS2322: …`, `a.py:3:5: E501 …`, `a.c:3:5: warning: …`
const LOCATED = /^(?:\S+?)(?:\(\d+,\d+\)|:\d+(?::\d+)?):?\s+(.*)$/;
const KEEP_PER_MESSAGE = 3;

export function filterBuildOutput(text: string): string {
  const lines = text.split('\n');
  const seen = new Map<string, number>();
  const out: string[] = [];
  let progress = 0;
  let repeats = 0;
  let at = -1;
  for (const line of lines) {
    if (PROGRESS.test(line)) {
      if (at < 0) at = out.length;
      progress++;
      continue;
    }
    const m = LOCATED.exec(line);
    if (m && !isErrorLine(line)) {
      const message = m[1]!;
      const count = (seen.get(message) ?? 0) + 1;
      seen.set(message, count);
      if (count > KEEP_PER_MESSAGE) {
        if (at < 0) at = out.length;
        repeats++;
        continue;
      }
    }
    out.push(line);
  }
  if (progress + repeats < 2) return text;
  const parts = [
    progress ? `${progress} progress lines` : '',
    repeats ? `${repeats} repeats of warnings already shown ${KEEP_PER_MESSAGE} times` : '',
  ];
  out.splice(at, 0, removedRoutine(parts.filter(Boolean).join(', ')));
  return out.join('\n');
}
