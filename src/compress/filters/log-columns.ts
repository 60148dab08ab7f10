// CI logs as `gh run view --log` prints them repeat the job, the step and the date on every row
// (`test\tRun tests\t2025-11-30T17:15:09.8038719Z …`): half of each row's tokens. A run of rows
// sharing them gets one header and keeps the rest of each row; reversible, so it applies to a
// log the agent reads as well as to one a command prints (a grep's `1141-` / `1144:` line
// prefixes are kept on their rows).
import { logColumnsHeader, LOG_COLUMNS_RE } from './markers.js';

// [grep line prefix] job \t step \t [BOM] date T time-and-text
const ROW = /^(\d+[:-])?([^\t\n]{1,80})\t([^\t\n]{0,120})\t(\uFEFF?)(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/;
/** Rows a header must stand for to pay for itself. */
const MIN_RUN = 3;
const MIN_ROWS = 6;

/** Whether most lines look like log rows, tested on the first lines only (cheap on other outputs). */
function looksLikeLog(lines: string[]): boolean {
  let rows = 0;
  const probe = Math.min(lines.length, 20);
  for (let i = 0; i < probe; i++) if (ROW.test(lines[i]!)) rows++;
  return rows >= Math.min(MIN_ROWS, probe) && rows * 2 >= probe;
}

export function factorLogColumns(text: string): string {
  if (!text.includes('\t') || LOG_COLUMNS_RE.test(text)) return text;
  const lines = text.split('\n');
  if (lines.length < MIN_ROWS || !looksLikeLog(lines)) return text;
  const out: string[] = [];
  let changed = false;
  let i = 0;
  while (i < lines.length) {
    const m = ROW.exec(lines[i]!);
    if (!m) {
      out.push(lines[i]!);
      i++;
      continue;
    }
    const [, , job, step, , date] = m;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const n = ROW.exec(lines[j]!);
      if (!n || n[2] !== job || n[3] !== step || n[5] !== date) break;
    }
    if (j - i < MIN_RUN) {
      for (let k = i; k < j; k++) out.push(lines[k]!);
    } else {
      out.push(logColumnsHeader(j - i, job!, step!, date!));
      for (let k = i; k < j; k++) {
        const n = ROW.exec(lines[k]!)!;
        out.push(`${n[1] ?? ''}${n[4]}${lines[k]!.slice(n[0].length - n[6]!.length)}`);
      }
      changed = true;
    }
    i = j;
  }
  return changed ? out.join('\n') : text;
}
