// Lines that must survive every cut: what failed, where and why.
const ERROR_RE =
  /\b(?:error|errors|fail|failed|failure|failures|fatal|panic|panicked|exception|traceback|assert|assertion|assertionerror|denied|segmentation fault|undefined reference|cannot|could not|unable to|not found|no such file)\b|✗|✘|✖|^E {2,}|^FAILED |^ERROR /i;

/** Marks error lines and whole Python / JS stack traces (frames carry the location). */
export function errorMask(lines: string[]): boolean[] {
  const mask = new Array<boolean>(lines.length).fill(false);
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

export function isErrorLine(line: string): boolean {
  return ERROR_RE.test(line);
}
