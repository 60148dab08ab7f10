import { repeatedLine } from './markers.js';

/** Runs of 3+ identical lines become the line plus a count (blank runs are left to normalize). */
export function collapseRepeats(text: string): string {
  const lines = text.split('\n');
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
