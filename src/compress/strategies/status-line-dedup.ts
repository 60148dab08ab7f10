// Agents append a status footer to every observation (SWE-agent: `(Open file: …)`,
// `(Current directory: …)`, `bash-$`, and after every edit a 30-token reminder to review it),
// often 30+ tokens with long paths, identical turn after turn. A footer line equal to the one in the previous live observation is dropped: the
// model still sees the current state in the latest observation that changed it.
//
// The decision for a result looks only at EARLIER results (whose original text never changes)
// and at the step-wise window, so it is the same in every later request: prefix-stable.
import { BoundedCache, registerCache } from '../cache.js';
import { errorMask } from '../filters/error-lines.js';
import { isPlaceholder } from '../filters/markers.js';
import { open, replace, type Strategy } from './strategy.js';

const STATUS_LINE =
  /^(?:\((?:Open file|Current directory|Current working directory|cwd|Working directory):[^)]*\)|[\w@:~/.-]{0,60}[$#%>]|File updated\. Please review the changes and make sure they are correct \(correct indentation, no duplicate lines, etc\)\. Edit the file again if necessary\.)$/;
const MAX_FOOTER = 4;

function footer(text: string): string[] {
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
function withoutFooter(text: string, drop: ReadonlySet<string>): string {
  let kept = text.trimEnd();
  for (;;) {
    const at = kept.lastIndexOf('\n');
    const last = kept.slice(at + 1).trimEnd();
    if (at < 0 || !drop.has(last) || errorMask([last])[0]) break;
    kept = kept.slice(0, at);
  }
  return kept.length < text.trimEnd().length ? kept : text;
}

// Every request re-sends every earlier result: their footers, and the texts without them, are
// memoised (the same text object then comes back, which later lookups compare by identity).
const footers = registerCache(new BoundedCache<string[]>(8 * 1024 * 1024));
const stripped = registerCache(new BoundedCache<Map<string, string>>(16 * 1024 * 1024));

function strippedText(text: string, drop: string[]): string {
  const byDrop = stripped.getOrCompute(
    text,
    () => new Map(),
    () => 64,
  );
  const key = drop.join('\n');
  let out = byDrop.get(key);
  if (out === undefined) byDrop.set(key, (out = withoutFooter(text, new Set(drop))));
  return out;
}

export const statusLineDedup: Strategy = {
  name: 'status_line_dedup',
  run(conversation, ctx) {
    let any = false;
    let previous: string[] | undefined;
    for (const r of conversation.results) {
      const mine = footers.getOrCompute(r.original, footer, (lines) => 16 + lines.reduce((n, l) => n + l.length, 0));
      const before = previous;
      previous = r.turn >= ctx.frozenBefore ? mine : undefined;
      if (!before || mine.length === 0 || !open(r) || isPlaceholder(r.text)) continue;
      const drop = mine.filter((line) => before.includes(line));
      if (drop.length === 0) continue;
      any = replace(r, strippedText(r.text, drop), this.name) || any;
    }
    return any;
  },
};
