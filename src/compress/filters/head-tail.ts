import { survivorMask } from './error-lines.js';
import { OMITTED_RE, omittedLines } from './markers.js';

export interface CutLimits {
  /** Outputs up to this many lines are left whole. */
  maxLines: number;
  head: number;
  tail: number;
}

/** Whether `text` has more than `max` lines, found without splitting it. */
function hasMoreLines(text: string, max: number): boolean {
  let at = -1;
  for (let lines = 1; lines <= max; lines++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) return false;
  }
  return true;
}

/**
 * Long command output keeps its head and tail; in between only error, trace and warning lines
 * and their neighbours survive, with a marker per gap that says which lines went and how to get
 * them back. Only for what a command printed: what the agent asked to read is never cut
 * (filters/index.ts).
 */
export function cutMiddle(text: string, limits: CutLimits): string {
  if (!hasMoreLines(text, limits.maxLines)) return text;
  if (OMITTED_RE.test(text)) return text; // already cut once
  const lines = text.split('\n');
  const mask = survivorMask(lines, text);
  const keep = new Array<boolean>(lines.length).fill(false);
  for (let i = 0; i < lines.length; i++) {
    keep[i] = i < limits.head || i >= lines.length - limits.tail || mask[i]!;
  }
  const out: string[] = [];
  let gapStart = -1;
  const flush = (end: number) => {
    if (gapStart < 0) return;
    const count = end - gapStart;
    // A one-line gap costs more as a marker than as the line itself.
    if (count === 1) out.push(lines[gapStart]!);
    else out.push(omittedLines(count, gapStart + 1, end, lines.length));
    gapStart = -1;
  };
  for (let i = 0; i < lines.length; i++) {
    if (keep[i]) {
      flush(i);
      out.push(lines[i]!);
    } else if (gapStart < 0) gapStart = i;
  }
  flush(lines.length);
  return out.length < lines.length ? out.join('\n') : text;
}
