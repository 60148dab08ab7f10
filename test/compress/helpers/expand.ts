// The lines every reference of the engine stands for, written independently of the engine
// (src/compress/first-sight/line-references.ts), so that the invariants check it.
import type { Dialogue } from './build.js';

const RUN_REF = /^\[… (\d+) lines as in the output of tool call (\S+) \(its lines (\d+)-(\d+)\) …\]$/;
const NUMBERED_REF =
  /^\[… lines numbered (\d+)-(\d+) as (?:numbered (\d+)-(\d+) |its lines (\d+)-(\d+) )?in the output of tool call (\S+) …\]$/;
const NUMBER_PREFIX = /^( *)(\d{1,7})(\t|:|→|\| ?)/;
const OWN_REF = /^\[… (?:\d+ lines|lines numbered (\d+)-(\d+)) as its own lines (\d+)-(\d+) above …\]$/;
// A reference into a patch (apply_patch) adds ", each without its first character".
const ARG_REF =
  /^\[… (\d+) lines as in the (\S+) argument of tool call (\S+), lines (\d+)-(\d+)(, each without its first character)? …\]$/;
const FROM_PLAIN_REF =
  /^\[… lines numbered (\d+)-(\d+) \(("(?:[^"\\]|\\.)*")\) as in (?:the output of tool call (\S+) \(its lines (\d+)-(\d+)\)|the (\S+) argument of tool call (\S+), lines (\d+)-(\d+)(, each without its first character)?) …\]$/;

/** A numbered line with its number replaced by `n`, padding kept (spaces, or zeros for OpenCode). */
function renumbered(line: string, n: number): string {
  const m = NUMBER_PREFIX.exec(line)!;
  const zero = m[2]!.length > 1 && m[2]![0] === '0';
  const digits = zero ? String(n).padStart(m[2]!.length, '0') : String(n);
  return `${digits.padStart(m[1]!.length + m[2]!.length)}${line.slice(m[1]!.length + m[2]!.length)}`;
}

/** The arguments of every call of a dialogue, by call id. */
export const argumentsOf = (d: Dialogue) =>
  new Map(d.turns.flatMap((t) => t.calls.map((c) => [c.id, c.args] as const)));

/** The string at `path` (`command`, `edits[0].new_string`) of a call's arguments. */
function argument(args: Record<string, unknown> | undefined, path: string): string {
  let value: unknown = args;
  for (const part of path.split(/\.|(?=\[)/)) {
    const index = /^\[(\d+)\]$/.exec(part);
    value = (value as Record<string, unknown>)[index ? Number(index[1]) : part];
  }
  return value as string;
}

/** An output with every run reference replaced by the lines it stands for (written independently of the engine). */
export function expandReferences(
  text: string,
  visible: Map<string, string>,
  args: Map<string, Record<string, unknown>> = new Map(),
): string {
  const out: string[] = [];
  const own = text.split('\n');
  for (const line of own) {
    const mine = OWN_REF.exec(line);
    if (mine) {
      for (let i = Number(mine[3]) - 1; i < Number(mine[4]); i++) {
        if (mine[1] === undefined) out.push(own[i]!);
        else out.push(renumbered(own[i]!, Number(mine[1]) + i - (Number(mine[3]) - 1)));
      }
      continue;
    }
    const plain = RUN_REF.exec(line);
    const numbered = NUMBERED_REF.exec(line);
    const arg = ARG_REF.exec(line);
    const fromPlain = FROM_PLAIN_REF.exec(line);
    if (plain) {
      const source = visible.get(plain[2]!)!.split('\n');
      out.push(...source.slice(Number(plain[3]) - 1, Number(plain[4])));
    } else if (arg) {
      const source = argument(args.get(arg[3]!), arg[2]!).split('\n');
      out.push(...source.slice(Number(arg[4]) - 1, Number(arg[5])).map((l) => (arg[6] ? l.slice(1) : l)));
    } else if (fromPlain) {
      // Unnumbered lines numbered from the quoted prefix of the first one.
      const source = (
        fromPlain[4] !== undefined ? visible.get(fromPlain[4])! : argument(args.get(fromPlain[8]!), fromPlain[7]!)
      ).split('\n');
      const from = Number(fromPlain[4] !== undefined ? fromPlain[5] : fromPlain[9]) - 1;
      const prefix = JSON.parse(fromPlain[3]!) as string;
      for (let k = 0; k <= Number(fromPlain[2]) - Number(fromPlain[1]); k++)
        out.push(
          renumbered(
            `${prefix}${fromPlain[11] ? source[from + k]!.slice(1) : source[from + k]!}`,
            Number(fromPlain[1]) + k,
          ),
        );
    } else if (numbered) {
      const [first, last] = [Number(numbered[1]), Number(numbered[2])];
      const source = visible.get(numbered[7]!)!.split('\n');
      let from: number;
      if (numbered[5] !== undefined) from = Number(numbered[5]) - 1;
      else {
        const oldFirst = numbered[3] === undefined ? first : Number(numbered[3]);
        from = source.findIndex((l) => Number(NUMBER_PREFIX.exec(l)?.[2]) === oldFirst);
      }
      for (let k = 0; k <= last - first; k++) out.push(renumbered(source[from + k]!, first + k));
    } else out.push(line);
  }
  return out.join('\n');
}
