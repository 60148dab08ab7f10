// One entry point per output kind. Every filter is a pure function of the text, so a tool
// result compresses to the same bytes in every request that carries it (prompt caches stay warm).
import type { OutputKind } from './classify.js';
import { filterBuildOutput } from './build-lint.js';
import { filterGitDiff, filterGitLog, filterGitStatus } from './git.js';
import { cutMiddle, type CutLimits } from './head-tail.js';
import { stripLineNumbers } from './line-numbers.js';
import { normalize } from './normalize.js';
import { filterInstallOutput } from './package-install.js';
import { collapseRepeats } from './repeats.js';
import { compactLongListing, groupGrepOutput, groupPathListing } from './search-listing.js';
import { filterTestOutput } from './test-runner.js';

export interface TrimOptions {
  stripLineNumbers: boolean;
}

const SHELL_LIMITS: CutLimits = { maxLines: 160, head: 60, tail: 60 };
// The agent asked for these lines; only very long views are cut.
const READ_LIMITS: CutLimits = { maxLines: 600, head: 300, tail: 200 };
const LIST_LIMITS: CutLimits = { maxLines: 250, head: 120, tail: 40 };

const SPECIFIC: Partial<Record<OutputKind, (text: string) => string>> = {
  test: filterTestOutput,
  install: filterInstallOutput,
  build: filterBuildOutput,
  'git-diff': filterGitDiff,
  'git-status': filterGitStatus,
  'git-log': filterGitLog,
  search: groupGrepOutput,
  list: (text) => groupPathListing(compactLongListing(text)),
};

// What every pattern of `sniff` starts with, in one pass: most outputs have none of it.
const SNIFF_GATE = /^(?:=+ test session starts|FAILED |PASSED |Requirement already satisfied: |diff --git a\/)/m;

/** Sniffs outputs whose command we could not see (unknown tools, generic bundle). */
function sniff(text: string): OutputKind | undefined {
  if (!SNIFF_GATE.test(text)) return undefined;
  if (/^=+ test session starts =+$/m.test(text) || /^(?:FAILED|PASSED) \S+::/m.test(text)) return 'test';
  if (/^Requirement already satisfied: /m.test(text)) return 'install';
  if (/^diff --git a\//m.test(text)) return 'git-diff';
  return undefined;
}

/** A line the engine wrote (`[… 12 lines omitted …]`, a reference to lines seen before…). */
const ENGINE_MARKER = /^\[… /m;

export function trimOutput(text: string, kind: OutputKind, opts: TrimOptions): string {
  // Filtered already (compressing twice must equal compressing once): a marker stands for lines
  // a filter would count or renumber differently.
  if (ENGINE_MARKER.test(text)) return text;
  const fileView = kind === 'read' || (kind === 'other' && /^\[File: /.test(text));
  let t = normalize(text, { fileContent: fileView });
  if (fileView) {
    if (opts.stripLineNumbers) t = stripLineNumbers(t);
    return cutMiddle(t, READ_LIMITS);
  }
  const effective = kind === 'shell' || kind === 'other' ? (sniff(t) ?? kind) : kind;
  const specific = SPECIFIC[effective];
  if (specific) t = specific(t);
  t = collapseRepeats(t);
  return cutMiddle(t, effective === 'list' || effective === 'search' ? LIST_LIMITS : SHELL_LIMITS);
}
