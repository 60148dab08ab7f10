import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/cli-process.js';

/**
 * The release before this checkout: the newest `v*` tag that is an ancestor of HEAD and not HEAD
 * itself, or, when tags were not fetched (CI may clone without them), the newest entry of
 * releases.json that is. Either names a commit the upgrade test builds and the expand-only check
 * compares migrations against (docs/scale-out.md, "Upgrades without downtime").
 */
export type PreviousRelease =
  { found: true; tag: string; commit: string; source: 'git tag' | 'releases.json' } | { found: false; why: string };

function git(args: string[]): { ok: boolean; out: string } {
  const result = spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return { ok: result.status === 0, out: (result.stdout ?? '').trim() };
}

const isStrictAncestor = (commit: string, head: string) =>
  commit !== head && git(['merge-base', '--is-ancestor', commit, head]).ok;

/** `useTags: false` reads releases.json only, as a clone without tags does. */
export function previousRelease(options: { useTags?: boolean } = {}): PreviousRelease {
  const head = git(['rev-parse', 'HEAD']);
  if (!head.ok) return { found: false, why: 'not a git checkout' };
  const tags =
    options.useTags === false
      ? []
      : git(['tag', '--list', 'v*', '--merged', 'HEAD', '--sort=-v:refname']).out.split('\n').filter(Boolean);
  for (const tag of tags) {
    const commit = git(['rev-list', '-n', '1', tag]).out;
    if (isStrictAncestor(commit, head.out)) return { found: true, tag, commit, source: 'git tag' };
  }
  const recorded = JSON.parse(readFileSync(join(REPO_ROOT, 'releases.json'), 'utf8')) as {
    releases: Array<{ tag: string; commit: string }>;
  };
  let missing: string | undefined;
  for (const { tag, commit } of [...recorded.releases].reverse()) {
    if (!git(['cat-file', '-e', `${commit}^{commit}`]).ok) {
      missing ??= `${tag} (${commit.slice(0, 12)})`;
      continue;
    }
    if (isStrictAncestor(commit, head.out)) return { found: true, tag, commit, source: 'releases.json' };
  }
  return {
    found: false,
    why: missing
      ? `the previous release ${missing} is not in this clone: fetch the full history (git fetch --unshallow --tags)`
      : 'no release precedes HEAD (HEAD is the first release, or no v* tag and releases.json names none before it)',
  };
}

/** A file of the release's tree, or undefined where it has none. */
export function fileAtRelease(commit: string, path: string): string | undefined {
  const shown = spawnSync('git', ['show', `${commit}:${path}`], { cwd: REPO_ROOT, encoding: 'utf8' });
  return shown.status === 0 ? shown.stdout : undefined;
}

/** Files of the release's tree under `dir`. */
export function filesAtRelease(commit: string, dir: string): string[] {
  return git(['ls-tree', '--name-only', `${commit}:${dir}`])
    .out.split('\n')
    .filter(Boolean);
}

/** Whether the word appears in the release's `src/` outside its migrations (git grep, whole words). */
export function releaseSourceMentions(commit: string, word: string): string[] {
  const found = spawnSync(
    'git',
    ['grep', '-l', '-w', '-F', word, commit, '--', 'src', ':(exclude)src/store/migrations'],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  return (found.stdout ?? '').split('\n').filter(Boolean);
}
