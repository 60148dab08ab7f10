/**
 * Refuses the regex shapes that backtrack catastrophically in a backtracking engine: a
 * quantified group that itself contains a quantifier (star height above one, `(a+)+`,
 * `(a|b*)*`, `(?:x{2,})+`) and back-references. This is the test safe-regex applies; it is
 * conservative (some harmless patterns are refused) and cheap. Returns the reason, or undefined.
 */
export function unsafeRegexReason(pattern: string): string | undefined {
  // One frame per open group: does it contain a quantifier anywhere inside?
  const stack: boolean[] = [false];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9k]/.test(next)) return 'back-references are not allowed';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '(') {
      stack.push(false);
      continue;
    }
    if (c === ')') {
      const innerQuantified = stack.pop() ?? false;
      if (stack.length === 0) stack.push(false);
      const quantifier = quantifierAt(pattern, i + 1);
      if (quantifier && innerQuantified)
        return 'nested quantifiers (a quantified group containing a quantifier) can take exponential time';
      if (innerQuantified || quantifier) stack[stack.length - 1] = true;
      continue;
    }
    if (quantifierAt(pattern, i)) stack[stack.length - 1] = true;
  }
  return undefined;
}

/** Is there an unbounded-ish quantifier (`*`, `+`, `{n,}`, `{n,m}`) starting at `index`? */
function quantifierAt(pattern: string, index: number): boolean {
  const c = pattern[index];
  if (c === '*' || c === '+') return true;
  return c === '{' && /^\{\d+,\d*\}/.test(pattern.slice(index, index + 24));
}
