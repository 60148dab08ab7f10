import { LINE_NUMBERS_RE, lineNumbersRemoved } from './markers.js';

// Prefix styles of the agents we know: SWE-agent `12:`, Claude Code `    12→`, OpenCode
// `00012| `, Cursor `    12|`, `cat -n` `    12\t`, Codex `L12: `.
const STYLES: RegExp[] = [/^(\d+):/, /^ *(\d+)→/, /^(\d{5})\| /, /^ *(\d+)\|/, /^ *(\d+)\t/, /^L(\d+): /];

/**
 * Removes per-line numbers when at least 80 % of the lines carry consecutive ones, and puts
 * the range in one header so the model still knows where the excerpt sits.
 */
export function stripLineNumbers(text: string): string {
  if (LINE_NUMBERS_RE.test(text)) return text;
  const lines = text.split('\n');
  const style = STYLES.find((re) => lines.slice(0, 8).some((l) => re.test(l)));
  if (!style) return text;
  let expected = -1;
  let first = -1;
  let numbered = 0;
  let insertAt = -1;
  const out: string[] = [];
  for (const line of lines) {
    const m = style.exec(line);
    const value = m ? Number(m[1]) : NaN;
    if (m && (expected < 0 || value === expected)) {
      if (first < 0) {
        first = value;
        insertAt = out.length;
      }
      expected = value + 1;
      numbered++;
      out.push(line.slice(m[0].length));
    } else {
      out.push(line);
    }
  }
  if (numbered < 3 || numbered < lines.length * 0.8) return text;
  out.splice(insertAt, 0, lineNumbersRemoved(first, expected - 1));
  return out.join('\n');
}
