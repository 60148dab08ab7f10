// Which tool outputs carry the input cost that is left, by command, weighted by how long each
// stays in the prompt: written once (1.25) and read on every later request of its session (0.1
// each), Anthropic prices with the cache always warm. Before and after the first-sight
// transforms, as a share of the whole weighted prompt (system, user and assistant messages
// included), and how much of what is left is text the conversation had not shown before (lines,
// compared without number prefixes, seen in no earlier output or call argument): a bound on what
// any lossless first-sight transform can still remove.
//
//   node --import tsx bench/compress/output-costs.ts [--dataset DIR] [--top N]
import { compressPayload } from '../../src/compress/index.js';
import { countTextTokens } from '../../src/tokenize/index.js';
import { loadDataset, prefixes, toShape } from './dataset.js';

type Msg = Record<string, unknown>;
type Call = { id: string; function: { arguments: string } };
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const DATA = arg('--dataset') ?? '/work/shared/datasets/mini-swe-agent-trajectories';
const TOP = Number(arg('--top') ?? 15);
const WRITE = 1.25;
const READ = 0.1;

const tokens = (text: unknown) => (typeof text === 'string' ? countTextTokens(text, 'o200k_base') : 0);
const NUMBER = /^ *\d{1,7}(?:\t|:|→|\| ?)/;
const bare = (line: string) => line.replace(NUMBER, '');

/** The command's first word after any `cd …`; a heredoc that writes a file is marked. */
function commandKind(command: string): string {
  const first = command
    .split(/&&|\|\||;|\n|\|/)
    .map((s) => s.trim())
    .find((s) => s && !/^cd\b/.test(s));
  const word = (first ?? '').split(/\s+/)[0] || '(none)';
  return /<<\s*'?"?EOF/.test(command) ? `${word} <<EOF` : word;
}

interface Row {
  outputs: number;
  before: number;
  after: number;
  fresh: number;
}
const rows = new Map<string, Row>();
const share = { system: 0, user: 0, assistant: 0, tool: 0 };
for (const conv of loadDataset(DATA)) {
  const requests = prefixes(conv);
  const full = requests[requests.length - 1]!;
  const body = toShape(full, 'chat') as { messages: Msg[] };
  const out = compressPayload(JSON.parse(JSON.stringify(body))).body as { messages: Msg[] };
  const commands = new Map<string, string>();
  const seen = new Set<string>();
  body.messages.forEach((m, j) => {
    const first = requests.findIndex((r) => r.length > j);
    const weight = WRITE + READ * (requests.length - 1 - first);
    if (m.role !== 'tool') {
      const calls = (m.tool_calls as Call[] | undefined) ?? [];
      for (const c of calls) {
        const command = String((JSON.parse(c.function.arguments) as { command?: unknown }).command ?? '');
        commands.set(c.id, command);
        for (const line of command.split('\n')) seen.add(bare(line));
      }
      const role = m.role === 'system' ? 'system' : m.role === 'user' ? 'user' : 'assistant';
      share[role] += weight * (tokens(m.content) + calls.reduce((n, c) => n + tokens(c.function.arguments), 0));
      return;
    }
    const text = String(out.messages[j]!.content);
    const lines = text.split('\n');
    const freshChars = lines.filter((l) => !seen.has(bare(l))).reduce((n, l) => n + l.length + 1, 0);
    const after = tokens(text);
    const kind = commandKind(commands.get(String(m.tool_call_id)) ?? '');
    const row = rows.get(kind) ?? { outputs: 0, before: 0, after: 0, fresh: 0 };
    row.outputs++;
    row.before += weight * tokens(m.content);
    row.after += weight * after;
    row.fresh += weight * after * Math.min(1, freshChars / Math.max(1, text.length + 1));
    rows.set(kind, row);
    share.tool += weight * tokens(m.content);
    for (const line of String(m.content).split('\n')) seen.add(bare(line));
  });
}
const total = share.system + share.user + share.assistant + share.tool;
const pct = (x: number) => `${((100 * x) / total).toFixed(1)} %`.padStart(8);
const all = [...rows.values()].reduce(
  (a, r) => ({
    outputs: a.outputs + r.outputs,
    before: a.before + r.before,
    after: a.after + r.after,
    fresh: a.fresh + r.fresh,
  }),
  { outputs: 0, before: 0, after: 0, fresh: 0 },
);
console.log(`${DATA}: weighted prompt cost (write ${WRITE}, then ${READ} per later request)`);
console.log(
  `system ${pct(share.system)}, user ${pct(share.user)}, assistant ${pct(share.assistant)}, tool output ${pct(share.tool)} → ${pct(all.after)} after first-sight`,
);
console.log(
  `${'command'.padEnd(20)} ${'outputs'.padStart(7)} ${'before'.padStart(8)} ${'after'.padStart(8)}  new text`,
);
for (const [kind, r] of [...rows.entries(), ['all', all] as const]
  .sort((a, b) => b[1].after - a[1].after)
  .slice(0, TOP + 1))
  console.log(
    `${kind.padEnd(20)} ${String(r.outputs).padStart(7)} ${pct(r.before)} ${pct(r.after)}  ${((100 * r.fresh) / Math.max(1, r.after)).toFixed(0)} %`,
  );
