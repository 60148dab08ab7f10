// Agents append a status footer to every observation (SWE-agent: `(Open file: …)`,
// `(Current directory: …)`, `bash-$`, and after every edit a 30-token reminder to review it),
// often 30+ tokens with long paths, identical turn after turn. A footer line equal to one of
// the previous output's footer is dropped at first sight (first-sight/first-sight.ts): the
// model still sees the current state in the latest output that changed it, and a masked output
// keeps its footer (strategies/observation-masking.ts).
import { errorMask } from './error-lines.js';

const STATUS_LINE =
  /^(?:\((?:Open file|Current directory|Current working directory|cwd|Working directory):[^)]*\)|[\w@:~/.-]{0,60}[$#%>]|File updated\. Please review the changes and make sure they are correct \(correct indentation, no duplicate lines, etc\)\. Edit the file again if necessary\.)$/;
const MAX_FOOTER = 4;

export function footer(text: string): string[] {
  // Only the tail can hold a footer; avoid splitting long outputs on every request.
  const tail = text.length > MAX_FOOTER * 200 ? text.slice(-MAX_FOOTER * 200) : text;
  const lines = tail.replace(/\r\n/g, '\n').trimEnd().split('\n');
  if (tail !== text) lines.shift(); // possibly cut mid-line
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < MAX_FOOTER; i--) {
    const line = lines[i]!.trimEnd();
    if (!STATUS_LINE.test(line)) break;
    out.unshift(line);
  }
  return out;
}

/** `text` without its trailing lines that are in `drop` (never an error line). */
export function withoutFooter(text: string, drop: ReadonlySet<string>): string {
  let kept = text.trimEnd();
  for (;;) {
    const at = kept.lastIndexOf('\n');
    const last = kept.slice(at + 1).trimEnd();
    if (at < 0 || !drop.has(last) || errorMask([last])[0]) break;
    kept = kept.slice(0, at);
  }
  return kept.length < text.trimEnd().length ? kept : text;
}
