// git diff / show / status / log as agents run them.
import { removedRoutine } from './markers.js';

/** Blob-hash `index` lines and mode lines say nothing the hunks do not. */
export function filterGitDiff(text: string): string {
  const lines = text.split('\n');
  const out = lines.filter((l) => !/^index [0-9a-f]{7,}\.\.[0-9a-f]{7,}(?: \d{6})?$/.test(l));
  return out.length === lines.length ? text : out.join('\n');
}

/** `(use "git add <file>..." to …)` hints repeat in every status. */
export function filterGitStatus(text: string): string {
  const lines = text.split('\n');
  const out = lines.filter(
    (l) =>
      !/^\s*\(use "git [^"]+" to [^)]*\)$/.test(l) &&
      !/^\s*\(commit or discard the untracked or modified content in submodules\)$/.test(l),
  );
  return out.length === lines.length ? text : out.join('\n');
}

/** Full-format log: drop the e-mail and the merge-commit plumbing, keep hash, author, date, subject. */
export function filterGitLog(text: string): string {
  const lines = text.split('\n');
  let removed = 0;
  const out: string[] = [];
  for (const line of lines) {
    if (/^Merge: [0-9a-f]+ [0-9a-f]+$/.test(line)) {
      removed++;
      continue;
    }
    const author = /^(Author:\s+[^<]+?)\s*<[^>]*>$/.exec(line);
    out.push(author ? author[1]! : line);
  }
  if (removed === 0 && out.every((l, i) => l === lines[i])) return text;
  if (removed > 0) out.unshift(removedRoutine(`${removed} merge-parent lines`));
  return out.join('\n');
}
