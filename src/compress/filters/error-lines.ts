// Lines that must survive every cut: what failed, where and why.
const ERROR_RE =
  /\b(?:error|errors|fail|failed|failure|failures|fatal|panic|panicked|exception|traceback|assert|assertion|assertionerror|denied|segmentation fault|undefined reference|cannot|could not|unable to|not found|no such file)\b|✗|✘|✖|^E {2,}|^FAILED |^ERROR /i;

// Anything either mask could mark, found in one pass over the whole text: most outputs have
// none, and then no line needs its own test. (`Traceback` is one of ERROR_RE's words.)
const ANY_ERROR = new RegExp(`${ERROR_RE.source}|^\\s+at .+[:(]\\d+`, 'im');

/** Whether `text` (the lines joined) may hold a line either mask marks; false means none. */
function mayMark(text: string | undefined): boolean {
  return text === undefined || ANY_ERROR.test(text);
}

/**
 * Marks error lines and whole Python / JS stack traces (frames carry the location). `text`, the
 * lines joined by `\n`, lets an output without any error skip the per-line tests.
 */
export function errorMask(lines: string[], text?: string): boolean[] {
  const mask = new Array<boolean>(lines.length).fill(false);
  if (!mayMark(text)) return mask;
  let inTrace = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('Traceback (most recent call last)')) {
      inTrace = true;
      mask[i] = true;
      continue;
    }
    if (inTrace) {
      mask[i] = true;
      // The exception line closes the trace: it is the first unindented line.
      if (line.length > 0 && line[0] !== ' ' && line[0] !== '\t') inTrace = false;
      continue;
    }
    if (ERROR_RE.test(line) || /^\s+at .+[:(]\d+/.test(line)) mask[i] = true;
  }
  return mask;
}

// Warnings are no failure, but a cut must not hide them either: they often explain the failure.
const WARNING_RE = /\b(?:warn|warning|warnings|deprecated|deprecation)\b/i;

/** Lines a head + tail cut keeps on either side of an error or warning line. */
const NEIGHBOURS = 1;

/**
 * What a lossy cut of command output must keep: every error and trace line (`errorMask`), every
 * warning, and their neighbours (the line that says which file, the one that says why).
 */
export function survivorMask(lines: string[], text?: string): boolean[] {
  const mask = errorMask(lines, text);
  const warnings = text === undefined || WARNING_RE.test(text);
  const marked: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (mask[i] || (warnings && WARNING_RE.test(lines[i]!))) marked.push(i);
  }
  for (const i of marked) {
    for (let j = Math.max(0, i - NEIGHBOURS); j <= Math.min(lines.length - 1, i + NEIGHBOURS); j++) mask[j] = true;
  }
  return mask;
}

export function isErrorLine(line: string): boolean {
  return ERROR_RE.test(line);
}

/**
 * Lines a reference to earlier output must never hide: every error line, and of a stack trace
 * its header, its innermost frame and the exception itself. The other frames of a trace the
 * model has already seen word for word may stand as a reference to where it saw them.
 */
export function pinnedMask(lines: string[], text?: string): boolean[] {
  const mask = new Array<boolean>(lines.length).fill(false);
  if (!mayMark(text)) return mask;
  let traceStart = -1;
  let lastFrame = -1;
  let jsFrame = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('Traceback (most recent call last)')) {
      traceStart = i;
      lastFrame = -1;
      mask[i] = true;
      continue;
    }
    if (traceStart >= 0) {
      if (line.startsWith('  File "')) lastFrame = i;
      if (line.length > 0 && line[0] !== ' ' && line[0] !== '\t') {
        // The exception closes the trace; its innermost frame stays with it.
        for (let j = lastFrame >= 0 ? lastFrame : i; j <= i; j++) mask[j] = true;
        traceStart = -1;
      }
      continue;
    }
    const frame = /^\s+at .+[:(]\d+/.test(line);
    // A JS trace keeps its innermost (first) frame.
    if (ERROR_RE.test(line) || (frame && !jsFrame)) mask[i] = true;
    jsFrame = frame;
  }
  // A trace cut off before its exception keeps its frames.
  if (traceStart >= 0) for (let j = traceStart; j < lines.length; j++) mask[j] = true;
  return mask;
}
