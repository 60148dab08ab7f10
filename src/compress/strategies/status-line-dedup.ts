// Agents append a status footer to every observation (SWE-agent: `(Open file: …)`,
// `(Current directory: …)`, `bash-$`), often 30+ tokens with long paths, identical turn after
// turn. A footer line equal to the one in the previous live observation is dropped: the
// model still sees the current state in the latest observation that changed it.
//
// The decision for a result looks only at EARLIER results (whose original text never changes)
// and at the step-wise window, so it is the same in every later request: prefix-stable.
import { errorMask } from '../filters/error-lines.js';
import { isPlaceholder } from '../filters/markers.js';
import { open, replace, type Strategy } from './strategy.js';

const STATUS_LINE = /^(?:\((?:Open file|Current directory|Current working directory|cwd|Working directory):[^)]*\)|[\w@:~/.\-]{0,60}[$#%>])$/;
const MAX_FOOTER = 4;

function footer(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').trimEnd().split('\n');
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < MAX_FOOTER; i--) {
    const line = lines[i]!.trimEnd();
    if (!STATUS_LINE.test(line)) break;
    out.unshift(line);
  }
  return out;
}

export const statusLineDedup: Strategy = {
  name: 'status_line_dedup',
  run(conversation, ctx) {
    let any = false;
    let previous: string[] | undefined;
    for (const r of conversation.results) {
      const mine = footer(r.original);
      const before = previous;
      previous = r.turn >= ctx.frozenBefore ? mine : undefined;
      if (!before || mine.length === 0 || !open(r) || isPlaceholder(r.text)) continue;
      const drop = new Set(mine.filter((line) => before.includes(line)));
      if (drop.size === 0) continue;
      const lines = r.text.trimEnd().split('\n');
      let cut = lines.length;
      while (cut > 1 && drop.has(lines[cut - 1]!.trimEnd()) && !errorMask([lines[cut - 1]!])[0]) cut--;
      if (cut === lines.length) continue;
      any = replace(r, lines.slice(0, cut).join('\n'), this.name) || any;
    }
    return any;
  },
};
