// Pretty-printed JSON from API and tool calls spends a token on nearly every indent. Removing
// whitespace outside strings is exactly lossless (no re-serialisation: numbers keep their text).
export function minifyJson(text: string): string | undefined {
  const t = text.trim();
  const first = t[0];
  const last = t[t.length - 1];
  if (!((first === '{' && last === '}') || (first === '[' && last === ']')) || !t.includes('\n')) return undefined;
  try {
    JSON.parse(t);
  } catch {
    return undefined;
  }
  let out = '';
  let inString = false;
  let from = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 32 || c === 10 || c === 13 || c === 9) {
      out += t.slice(from, i);
      from = i + 1;
    }
  }
  return out + t.slice(from);
}
