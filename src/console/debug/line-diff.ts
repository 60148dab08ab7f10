/** One line of a diff: kept, only on the left (removed) or only on the right (added); `skip` stands for unchanged lines left out. */
export type DiffLine = { op: 'same' | 'removed' | 'added'; text: string } | { op: 'skip'; count: number };

/** Cells of the longest-common-subsequence table computed at most; a bigger middle is shown as replaced whole. */
const MAX_CELLS = 4_000_000;
/** Unchanged lines shown either side of a change. */
const CONTEXT = 3;

/**
 * A line diff of `left` → `right`: the common head and tail taken off first (compression changes a
 * few spans of a long history), the middle by longest common subsequence, unchanged runs longer
 * than twice the context folded into `skip`. Quadratic only in the changed middle, and bounded by
 * MAX_CELLS: past it the middle is reported as removed then added.
 */
export function lineDiff(left: readonly string[], right: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < left.length && head < right.length && left[head] === right[head]) head++;
  let tail = 0;
  while (
    tail < left.length - head &&
    tail < right.length - head &&
    left[left.length - 1 - tail] === right[right.length - 1 - tail]
  )
    tail++;
  const a = left.slice(head, left.length - tail);
  const b = right.slice(head, right.length - tail);
  const lines: DiffLine[] = left.slice(0, head).map((text) => ({ op: 'same', text }));
  lines.push(...middle(a, b));
  for (const text of left.slice(left.length - tail)) lines.push({ op: 'same', text });
  return fold(lines);
}

function middle(a: readonly string[], b: readonly string[]): DiffLine[] {
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > MAX_CELLS)
    return [
      ...a.map((text) => ({ op: 'removed' as const, text })),
      ...b.map((text) => ({ op: 'added' as const, text })),
    ];
  const width = b.length + 1;
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i * width + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) out.push({ op: 'removed', text: a[i++]! });
    else out.push({ op: 'added', text: b[j++]! });
  }
  while (i < a.length) out.push({ op: 'removed', text: a[i++]! });
  while (j < b.length) out.push({ op: 'added', text: b[j++]! });
  return out;
}

/** Unchanged runs longer than twice the context keep CONTEXT lines at each end (at the edges, only the side next to a change). */
function fold(lines: DiffLine[]): DiffLine[] {
  const out: DiffLine[] = [];
  let run: DiffLine[] = [];
  const flush = (atEnd: boolean) => {
    const before = out.length === 0 ? 0 : CONTEXT;
    const after = atEnd ? 0 : CONTEXT;
    if (run.length > before + after) {
      out.push(...run.slice(0, before), { op: 'skip', count: run.length - before - after });
      out.push(...run.slice(run.length - after));
    } else out.push(...run);
    run = [];
  };
  for (const line of lines) {
    if (line.op === 'same') run.push(line);
    else {
      flush(false);
      out.push(line);
    }
  }
  flush(true);
  return out;
}

/** Whether a diff holds any change. */
export const changed = (diff: readonly DiffLine[]) => diff.some((line) => line.op === 'added' || line.op === 'removed');
