// One entry point per output kind. Every filter is a pure function of the text, so a tool
// result compresses to the same bytes in every request that carries it (prompt caches stay warm).
import type { OutputKind } from './classify.js';
import { filterBuildOutput } from './build-lint.js';
import { filterGitDiff, filterGitLog, filterGitStatus } from './git.js';
import { cutMiddle, type CutLimits } from './head-tail.js';
import { stripLineNumbers } from './line-numbers.js';
import { factorLogColumns } from './log-columns.js';
import { normalize } from './normalize.js';
import { filterInstallOutput } from './package-install.js';
import { collapseRepeats } from './repeats.js';
import { compactLongListing, groupGrepOutput, groupPathListing } from './search-listing.js';
import { filterTestOutput } from './test-runner.js';

export interface TrimOptions {
  stripLineNumbers: boolean;
}

const SHELL_LIMITS: CutLimits = { maxLines: 160, head: 60, tail: 60 };
const LIST_LIMITS: CutLimits = { maxLines: 250, head: 120, tail: 40 };

const SPECIFIC: Partial<Record<OutputKind, (text: string) => string>> = {
  test: filterTestOutput,
  install: filterInstallOutput,
  build: filterBuildOutput,
  'git-diff': filterGitDiff,
  'git-status': filterGitStatus,
  'git-log': filterGitLog,
  search: groupSearchOutput,
  list: (text) => groupPathListing(compactLongListing(text)),
};

// What every pattern of `sniff` starts with, in one pass: most outputs have none of it.
const SNIFF_GATE = /^(?:=+ test session starts|FAILED |PASSED |Requirement already satisfied: |diff --git a\/)/m;

/** Matching lines grouped by file; a list of matching files (`grep -l`, Grep's default mode) by directory. */
function groupSearchOutput(text: string): string {
  const grouped = groupGrepOutput(text);
  return grouped !== text ? grouped : groupPathListing(text);
}

/** Sniffs shell outputs whose command says nothing (a script, a make target). */
function sniff(text: string): OutputKind | undefined {
  if (!SNIFF_GATE.test(text)) return undefined;
  if (/^=+ test session starts =+$/m.test(text) || /^(?:FAILED|PASSED) \S+::/m.test(text)) return 'test';
  if (/^Requirement already satisfied: /m.test(text)) return 'install';
  if (/^diff --git a\//m.test(text)) return 'git-diff';
  return undefined;
}

/** A line the engine wrote (`[… 12 lines omitted …]`, a reference to lines seen before…). */
const ENGINE_MARKER = /^\[… /m;

/**
 * Outputs the agent asked for, which no filter may cut: a file read or ranged view (`read`),
 * and whatever a tool other than a shell, search or listing returned (`other`: an edit's result,
 * a subagent's report, a fetched page). Only reversible encodings apply to them.
 */
export function isAskedFor(kind: OutputKind): boolean {
  return kind === 'read' || kind === 'other';
}

// A line a logger or a test runner wrote: a timestamp or a level first, or a test's verdict.
const LOG_LINE =
  /^\s*\[?(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|(?:TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL)\b)|^\S+::\S+ (?:PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b/;
const MIN_LOG_LINES = 20;

/**
 * An unknown tool's output that is a log (nearly every line stamped by a logger): command
 * output, not something the agent asked to read whole, so the log cuts apply to it.
 */
function isLog(text: string): boolean {
  const lines = text.split('\n', 2_000);
  if (lines.length < MIN_LOG_LINES) return false;
  let stamped = 0;
  for (const line of lines) if (LOG_LINE.test(line)) stamped++;
  return stamped >= lines.length * 0.8;
}

export function trimOutput(text: string, kind: OutputKind, opts: TrimOptions): string {
  // Filtered already (compressing twice must equal compressing once): a marker stands for lines
  // a filter would count or renumber differently.
  if (ENGINE_MARKER.test(text)) return text;
  if (kind === 'read' || (kind === 'other' && /^\[File: /.test(text))) {
    const t = normalize(text, { fileContent: true });
    return factorLogColumns(opts.stripLineNumbers ? stripLineNumbers(t) : t);
  }
  if (kind === 'other' && (isLog(text) || sniff(text) !== undefined)) kind = 'shell';
  if (isAskedFor(kind)) {
    // Nothing here is file content an edit must match byte for byte, but it is the only copy the
    // agent has (a subagent's report): terminal noise goes, a run of one line keeps its count.
    return collapseRepeats(normalize(text, { fileContent: true }));
  }
  let t = normalize(text, { fileContent: false });
  const effective = kind === 'shell' ? (sniff(t) ?? kind) : kind;
  const specific = SPECIFIC[effective];
  if (specific) t = specific(t);
  t = collapseRepeats(factorLogColumns(t));
  return cutMiddle(t, effective === 'list' || effective === 'search' ? LIST_LIMITS : SHELL_LIMITS);
}
