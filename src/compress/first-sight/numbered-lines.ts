// Lines of numbered file views: `   583\t` (nl -ba, cat -n), `583:` (SWE-agent, grep -n),
// `   12→` (Claude Code), `00012| ` (OpenCode), `   12|` (Cursor). A run of such lines is
// compared by the text after the number, and written back with the number changed and the
// padding kept, so that a reference can shift numbers exactly.

/** One line split into its number prefix (when it has one) and the rest. */
export interface LineKey {
  /** What has to be equal: the whole line, or style + text after the number. */
  key: string;
  number: number | undefined;
  /** Length of the number prefix; 0 for a line without one. */
  prefix: number;
}

export const NUMBERED = /^( *)(\d{1,7})(\t|:|→|\| ?)/;

export function lineKey(line: string): LineKey {
  const m = NUMBERED.exec(line);
  if (!m) return { key: line, number: undefined, prefix: 0 };
  // The padding before the number changes with its width; the separator style must match.
  return { key: `\u0000${m[3]}\u0000${line.slice(m[0].length)}`, number: Number(m[2]), prefix: m[0].length };
}

/** Renumbers a numbered line, keeping its right-aligned padding width (spaces, or OpenCode's zeros). */
export function renumber(line: string, to: number): string {
  const m = NUMBERED.exec(line)!;
  const width = m[1]!.length + m[2]!.length;
  const digits = m[2]!.length > 1 && m[2]![0] === '0' ? String(to).padStart(m[2]!.length, '0') : String(to);
  return `${digits.padStart(width)}${line.slice(m[0].length - m[3]!.length)}`;
}

/** The line `text` numbered `to` in the style of `prefix` (a number prefix such as `   288\t`). */
export function numbered(prefix: string, to: number, text: string): string {
  return renumber(`${prefix}${text}`, to);
}
