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

// `drwxr-xr-x  2 root root   4096 Oct 24  2024 name` (GNU and BSD `ls -l`; `-> target` kept).
const LONG_ROW =
  /^([-dlcbps][-rwxsStT]{9}[.@+]?)\s+\d+\s+(\S+)\s+(\S+)\s+(\d+(?:,\s*\d+)?)\s+(\w{3}\s+\d{1,2}\s+(?:\d{4}|\d{1,2}:\d{2}))\s(.+)$/;

/**
 * `ls -l` rows keep the type and permissions, the size (files only) and the name; link counts,
 * owner and group, and modification dates go, said once in a header. Applied only when most
 * lines are such rows (a listing, not a log that happens to contain one).
 */
export function compactLongListing(text: string): string {
  const lines = text.split('\n');
  let rows = 0;
  const owners = new Set<string>();
  for (const line of lines) {
    const m = LONG_ROW.exec(line);
    if (!m) continue;
    rows++;
    owners.add(`${m[2]} ${m[3]}`);
  }
  if (rows < 4 || rows < lines.filter((l) => l.trim() !== '').length * 0.6) return text;
  let at = -1;
  const out: string[] = [];
  for (const line of lines) {
    const m = LONG_ROW.exec(line);
    if (!m) {
      out.push(line);
      continue;
    }
    if (at < 0) at = out.length;
    const [, mode, , , size, , name] = m;
    const owner = owners.size === 1 ? '' : ` ${m[2]}:${m[3]}`;
    out.push(mode![0] === 'd' ? `${mode}${owner} ${name}/` : `${mode}${owner} ${size} ${name}`);
  }
  const who = owners.size === 1 ? `owner ${[...owners][0]!.replace(' ', ':')} on every row; ` : '';
  out.splice(at, 0, `[ls -l rows: ${who}link counts and dates left out; sizes in bytes]`);
  return out.join('\n');
}
