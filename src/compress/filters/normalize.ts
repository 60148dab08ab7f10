// Lossless-for-the-model clean-up shared by every filter: terminal escapes, carriage-return
// redraws and progress bars carry no information once the command has finished.

const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const PROGRESS = [
  /^\s*\d{1,3}(?:\.\d+)?%\s*[|[]/, // tqdm: ` 45%|████▌     |`
  /[█▉▊▋▌▍▎▏━╸╺■▰]{4,}/, // block-character bars (pip, rich, cargo)
  /^\s*\[[=#>\-. ]{8,}\]/, // `[=====>    ]`
  /\d+(?:\.\d+)?\s*[kMG]i?B\/s\b/, // transfer rates
  /^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏|/\\-]\s*$/, // spinner frames
  /^\s*% Total\s+% Received|^\s+Dload\s+Upload\s+Total|--:--:--/, // curl's progress meter
];

export function stripAnsi(text: string): string {
  return text.includes('\x1b') ? text.replace(ANSI, '') : text;
}

/** `\r\n` → `\n`; a line redrawn with `\r` keeps only its final state. */
export function resolveCarriageReturns(text: string): string {
  if (!text.includes('\r')) return text;
  const unix = text.replace(/\r\n/g, '\n');
  if (!unix.includes('\r')) return unix;
  return unix
    .split('\n')
    .map((line) => {
      if (!line.includes('\r')) return line;
      const frames = line.split('\r').filter((f) => f.length > 0);
      return frames[frames.length - 1] ?? '';
    })
    .join('\n');
}

// Something every PROGRESS pattern needs, in one pass: most lines (code, logs) have none of it.
const PROGRESS_GATE = /%|[█▉▊▋▌▍▎▏━╸╺■▰]|\[[=#>\-. ]{8}|B\/s|Dload|--:--:--|^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏|/\\-]\s*$/;

// The gate over a whole text: a line that passes the gate makes the text pass it (`^`/`$` also
// match at line ends here), so a text that does not has no progress line at all.
const PROGRESS_GATE_ANY_LINE = new RegExp(PROGRESS_GATE.source, 'm');

export function isProgressLine(line: string): boolean {
  if (!PROGRESS_GATE.test(line)) return false;
  if (/error|fail|warn/i.test(line)) return false;
  return PROGRESS.some((re) => re.test(line));
}

export interface NormalizeOptions {
  /**
   * File contents keep trailing blanks, blank runs and bar-like lines: edit tools match them
   * byte for byte and line numbers must not shift.
   */
  fileContent: boolean;
}

const isBlank = (c: number) => c === 32 || c === 9;

/**
 * `text.replace(/[ \t]+$/gm, '')`, as a loop: the regex retries from every blank of every
 * indentation run before it finds that the run does not end a line.
 */
export function stripTrailingBlanks(text: string): string {
  // `$` also matches before \r, U+2028 and U+2029; such texts are rare and keep the regex.
  if (text.includes('\r') || text.includes('\u2028') || text.includes('\u2029')) return text.replace(/[ \t]+$/gm, '');
  const parts: string[] = [];
  let from = 0;
  for (let end = text.indexOf('\n'); ; end = text.indexOf('\n', end + 1)) {
    const lineEnd = end < 0 ? text.length : end;
    let cut = lineEnd;
    // Stops at the line's start at the latest: the character before it is a \n.
    while (cut > 0 && isBlank(text.charCodeAt(cut - 1))) cut--;
    if (cut < lineEnd) {
      parts.push(text.slice(from, cut));
      from = lineEnd;
    }
    if (end < 0) break;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}

export function normalize(text: string, opts: NormalizeOptions): string {
  let t = resolveCarriageReturns(stripAnsi(text));
  if (opts.fileContent) return t;
  t = stripTrailingBlanks(t);
  if (PROGRESS_GATE_ANY_LINE.test(t)) {
    const lines = t.split('\n');
    const kept = lines.filter((l) => !isProgressLine(l));
    if (kept.length !== lines.length) t = kept.join('\n');
  }
  return t.includes('\n\n\n\n') ? t.replace(/\n{4,}/g, '\n\n\n') : t;
}
