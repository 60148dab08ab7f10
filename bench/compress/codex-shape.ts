// A session as Codex would have sent it: the same exchange, with Codex's tools and the envelopes
// its outputs arrive in (src/compress/formats/output-envelope.ts describes them), so that
// cost.ts can price every dataset in its native shape and in Codex's two.
//
// Codex has a shell and apply_patch, no file tools: a Read becomes `nl -ba FILE` (with
// `| sed -n 'A,Bp'` for an offset/limit), whose line numbers `     12\t` stand where Claude
// Code's `     12→` stood; Grep becomes `rg`, Glob `rg --files -g`, LS `ls -la`, Bash and
// the trajectories' `bash` run as they are; Edit, MultiEdit and Write become apply_patch. Every
// such output goes in the envelope of the output format (`shell`: the JSON object of the
// `shell` tool; `exec`: the header of `exec_command`), with an exit code of 1 when the agent
// was told of an error and a duration derived from the call id (deterministic). Tools Codex has
// no counterpart for (Task, TodoWrite, WebFetch, the trajectories' editors…) stay as they are,
// as an MCP server's tools would.
import { createHash } from 'node:crypto';
import type { Conversation } from './dataset.js';

type Msg = Record<string, unknown>;
type Call = { id: string; type: string; function: { name: string; arguments: string } };

export type CodexFormat = 'shell' | 'exec';
export const CODEX_FORMATS: CodexFormat[] = ['shell', 'exec'];

const quote = (s: string) => (/^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The shell command Codex would have run for the call, or undefined for a tool it keeps. */
export function codexCommand(name: string, input: Record<string, unknown>): string | undefined {
  switch (name) {
    case 'bash':
    case 'Bash':
      return str(input.command);
    case 'Read': {
      const path = quote(str(input.file_path) ?? '');
      const offset = typeof input.offset === 'number' ? input.offset : undefined;
      const limit = typeof input.limit === 'number' ? input.limit : undefined;
      if (offset === undefined && limit === undefined) return `nl -ba ${path}`;
      const from = offset ?? 1;
      return `nl -ba ${path} | sed -n '${from},${from + (limit ?? 2000) - 1}p'`;
    }
    case 'Grep': {
      const flags = ['-n', input['-i'] ? '-i' : '', input.output_mode === 'files_with_matches' ? '-l' : '']
        .concat(['-A', '-B', '-C'].flatMap((f) => (typeof input[f] === 'number' ? [`${f} ${input[f] as number}`] : [])))
        .concat(str(input.glob) ? [`-g ${quote(str(input.glob)!)}`] : [])
        .filter(Boolean);
      return [
        'rg',
        ...flags,
        quote(str(input.pattern) ?? ''),
        ...(str(input.path) ? [quote(str(input.path)!)] : []),
      ].join(' ');
    }
    case 'Glob':
      return `rg --files -g ${quote(str(input.pattern) ?? '*')}${str(input.path) ? ` ${quote(str(input.path)!)}` : ''}`;
    case 'LS':
      return `ls -la ${quote(str(input.path) ?? '.')}`;
    default:
      return undefined;
  }
}

const EDITS = new Set(['Edit', 'MultiEdit', 'Write']);

/** The patch an edit would have been: what the model wrote, in apply_patch's grammar. */
export function codexPatch(name: string, input: Record<string, unknown>): string {
  const path = str(input.file_path) ?? '';
  const lines = (text: string, sign: string) =>
    text
      .split('\n')
      .map((l) => sign + l)
      .join('\n');
  if (name === 'Write')
    return `*** Begin Patch\n*** Add File: ${path}\n${lines(str(input.content) ?? '', '+')}\n*** End Patch`;
  const edits = (Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [input]).map(
    (e) => `@@\n${lines(str(e.old_string) ?? '', '-')}\n${lines(str(e.new_string) ?? '', '+')}`,
  );
  return `*** Begin Patch\n*** Update File: ${path}\n${edits.join('\n')}\n*** End Patch`;
}

/** Numbers taken from the call id: the same on every run, different between calls. */
function seedOf(id: string): Buffer {
  return createHash('sha256').update(id).digest();
}

const ERROR = /^(?:Error|<tool_use_error>|Exit code [1-9])/;

/** The output as Codex's `shell` tool returns it (serde_json: the duration always has a decimal). */
export function shellEnvelope(output: string, exitCode: number, seconds: number): string {
  return `{"output":${JSON.stringify(output)},"metadata":{"exit_code":${exitCode},"duration_seconds":${seconds.toFixed(1)}}}`;
}

/** The output as Codex's `exec_command` returns it. */
export function execEnvelope(output: string, exitCode: number, seconds: number, chunkId: string): string {
  const tokens = Math.ceil(output.length / 4);
  return `Chunk ID: ${chunkId}\nWall time: ${seconds.toFixed(4)} seconds\nProcess exited with code ${exitCode}\nOriginal token count: ${tokens}\nOutput:\n${output}`;
}

function envelope(format: CodexFormat, callId: string, output: string): string {
  const seed = seedOf(callId);
  const exitCode = ERROR.test(output) ? 1 : 0;
  const seconds = seed.readUInt16BE(0) / 6553.6;
  return format === 'shell'
    ? shellEnvelope(output, exitCode, seconds)
    : execEnvelope(output, exitCode, seconds, seed.toString('hex').slice(0, 6));
}

/** A Claude Code Read's `     12→` prefixes as `nl -ba` prints them. */
const nlNumbers = (text: string) => text.replace(/^( *\d+)→/gm, '$1\t');

function codexCall(call: Call, format: CodexFormat): { call: Call; wrap: ((output: string) => string) | undefined } {
  let input: Record<string, unknown> = {};
  try {
    input = JSON.parse(call.function.arguments) as Record<string, unknown>;
  } catch {
    return { call, wrap: undefined };
  }
  const name = call.function.name;
  const wrap = (output: string) => envelope(format, call.id, name === 'Read' ? nlNumbers(output) : output);
  if (EDITS.has(name)) {
    const args = JSON.stringify({ input: codexPatch(name, input) });
    return { call: { ...call, function: { name: 'apply_patch', arguments: args } }, wrap };
  }
  const command = codexCommand(name, input);
  if (command === undefined) return { call, wrap: undefined };
  const args =
    format === 'shell' ? JSON.stringify({ command: ['bash', '-lc', command] }) : JSON.stringify({ cmd: command });
  return {
    call: { ...call, function: { name: format === 'shell' ? 'shell' : 'exec_command', arguments: args } },
    wrap,
  };
}

/** Codex names its session and, for a subagent, the subagent's own thread. */
function codexHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  const session = headers?.['x-claude-code-session-id'];
  if (session === undefined) return headers;
  return { 'session-id': session, 'thread-id': headers?.['x-claude-code-agent-id'] ?? session };
}

/** The conversation with Codex's tool calls and output envelopes; everything else as it was. */
export function toCodexShape(conv: Conversation, format: CodexFormat): Conversation {
  const wraps = new Map<string, (output: string) => string>();
  const messages = conv.messages.map((m): Msg => {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      const calls = (m.tool_calls as Call[]).map((c) => {
        const converted = codexCall(c, format);
        if (converted.wrap) wraps.set(c.id, converted.wrap);
        return converted.call;
      });
      return { ...m, tool_calls: calls };
    }
    if (m.role === 'tool' && typeof m.content === 'string') {
      const wrap = wraps.get(m.tool_call_id as string);
      return wrap ? { ...m, content: wrap(m.content) } : m;
    }
    return m;
  });
  return { ...conv, name: `${conv.name} (codex ${format})`, messages, headers: codexHeaders(conv.headers) };
}
