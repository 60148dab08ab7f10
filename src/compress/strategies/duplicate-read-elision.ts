// Agents re-read files and re-run commands; the second copy adds nothing.
//
// Two directions, chosen for prompt-cache stability:
// - Live turns (not yet old): a NEWER exact copy becomes a pointer back to the older one. The
//   older message is left alone, so the already-sent prefix keeps its bytes.
// - Old turns (behind the step-wise window): an OLDER copy of a file or output that is seen
//   again later (also in the old region) becomes a pointer to the later one, as SWE-agent,
//   Cline and OpenCode keep only the latest view. The old region only grows when the window
//   steps, so this rewrite happens at steps only.
import { toolKind } from '../bundles.js';
import { isPlaceholder, sameAs, supersededBy } from '../filters/markers.js';
import type { ToolResult } from '../types.js';
import { open, replace, type Strategy, type StrategyContext } from './strategy.js';

const MIN_CHARS = 200;
const RANGE_ARGS = ['offset', 'limit', 'view_range', 'start_line', 'end_line', 'line_number', 'lines', 'start', 'end'];

/** Same file read in full again (a partial view does not supersede another range). */
function fileKey(result: ToolResult, ctx: StrategyContext): string | undefined {
  const call = result.call;
  if (!call?.args || toolKind(ctx.bundle, call.name) !== 'read') return undefined;
  if (RANGE_ARGS.some((a) => call.args![a] !== undefined)) return undefined;
  for (const name of ctx.bundle.pathArgs) {
    const path = call.args[name];
    if (typeof path === 'string') return `file:${path}`;
  }
  return undefined;
}

function candidate(result: ToolResult): boolean {
  return open(result) && result.text.length >= MIN_CHARS && !isPlaceholder(result.text);
}

export const duplicateReadElision: Strategy = {
  name: 'duplicate_read_elision',
  run(conversation, ctx) {
    let any = false;
    const results = conversation.results;

    // Old region, newest first: remember the latest holder of each content / file.
    const latestText = new Map<string, string>();
    const latestFile = new Map<string, string>();
    for (let i = results.length - 1; i >= 0; i--) {
      const r = results[i]!;
      if (r.turn >= ctx.frozenBefore || !candidate(r)) continue;
      const file = fileKey(r, ctx);
      const byText = latestText.get(r.text);
      const byFile = file === undefined ? undefined : latestFile.get(file);
      if (!latestText.has(r.text)) latestText.set(r.text, r.callId);
      if (file !== undefined && !latestFile.has(file)) latestFile.set(file, r.callId);
      if (byText !== undefined && byText !== r.callId)
        any = replace(r, supersededBy('copy of this output', byText), this.name) || any;
      else if (byFile !== undefined && byFile !== r.callId)
        any = replace(r, supersededBy(`view of ${file!.slice(5)}`, byFile), this.name) || any;
    }

    // Live region, oldest first: later exact copies point back.
    const first = new Map<string, string>();
    for (const r of results) {
      if (r.turn < ctx.frozenBefore || !candidate(r)) continue;
      const earlier = first.get(r.text);
      if (earlier !== undefined && earlier !== r.callId) any = replace(r, sameAs(earlier), this.name) || any;
      else first.set(r.text, r.callId);
    }
    return any;
  },
};
