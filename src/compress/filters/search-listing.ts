// grep/rg and find/ls output: the same long path repeated on every line is factored out.

const GREP_LINE = /^([^\s:][^:]*?):(\d+)([:-])(.*)$/;

/** `path:12:text` rows → `path` once, then `  12:text`. */
export function groupGrepOutput(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let current: string | undefined;
  let grouped = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = GREP_LINE.exec(line);
    if (!m) {
      current = undefined;
      out.push(line);
      continue;
    }
    const [, path, num, sep, rest] = m;
    const next = GREP_LINE.exec(lines[i + 1] ?? '');
    if (path !== current && next?.[1] !== path) {
      out.push(line); // a lone match gains nothing from a header
      current = undefined;
      continue;
    }
    if (path !== current) {
      out.push(`${path}:`);
      current = path;
    }
    out.push(`  ${num}${sep}${rest}`);
    grouped++;
  }
  return grouped >= 3 ? out.join('\n') : text;
}

/** Runs of 3+ paths in one directory → `dir/` then indented names. */
export function groupPathListing(text: string): string {
  const lines = text.split('\n');
  const dirOf = (l: string) => {
    if (!/^[^\s].*\/[^/\s][^/]*$/.test(l) || l.length > 300) return undefined;
    return l.slice(0, l.lastIndexOf('/') + 1);
  };
  const out: string[] = [];
  let i = 0;
  let changed = false;
  while (i < lines.length) {
    const dir = dirOf(lines[i]!);
    let j = i + 1;
    if (dir !== undefined && dir.length > 2) while (j < lines.length && dirOf(lines[j]!) === dir) j++;
    if (dir !== undefined && j - i >= 3 && dir.length > 2) {
      out.push(dir);
      for (let k = i; k < j; k++) out.push(`  ${lines[k]!.slice(dir.length)}`);
      changed = true;
    } else {
      for (let k = i; k < j; k++) out.push(lines[k]!);
    }
    i = j;
  }
  return changed ? out.join('\n') : text;
}
