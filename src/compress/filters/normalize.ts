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

export function normalize(text: string, opts: NormalizeOptions): string {
  let t = resolveCarriageReturns(stripAnsi(text));
  if (opts.fileContent) return t;
  t = t.replace(/[ \t]+$/gm, '');
  const lines = t.split('\n');
  const kept = lines.filter((l) => !isProgressLine(l));
  if (kept.length !== lines.length) t = kept.join('\n');
  return t.replace(/\n{4,}/g, '\n\n\n');
}
