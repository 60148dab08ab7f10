import { repeatedLine } from './markers.js';

/** Runs of 3+ identical lines become the line plus a count (blank runs are left to normalize). */
export function collapseRepeats(text: string): string {
  const lines = text.split('\n');
  if (!hasRun(lines)) return text;
  const out: string[] = [];
  let i = 0;
  let changed = false;
  while (i < lines.length) {
    const line = lines[i]!;
    let j = i + 1;
    while (j < lines.length && lines[j] === line) j++;
    const run = j - i;
    if (run >= 3 && line.trim().length > 0) {
      out.push(line, repeatedLine(run - 1));
      changed = true;
    } else {
      for (let k = i; k < j; k++) out.push(line);
    }
    i = j;
  }
  return changed ? out.join('\n') : text;
}

/** Whether some non-blank line comes three times in a row (most outputs: no, and no copy made). */
function hasRun(lines: string[]): boolean {
  for (let i = 2; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === lines[i - 1] && line === lines[i - 2] && line.trim().length > 0) return true;
  }
  return false;
}
