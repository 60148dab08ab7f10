// Codex does not send a command's output as it was printed: the text comes inside an envelope,
// and no filter could read it there (a JSON string has every newline escaped). The shapes:
//
// - `shell`: `{"output":"…","metadata":{"exit_code":0,"duration_seconds":0.1}}` (serde_json);
// - `exec_command` (unified exec): `Chunk ID: …\nWall time: 0.0512 seconds\nProcess exited with
//   code 0\nOriginal token count: 12\nOutput:\n…`, and the freeform `shell_command`'s
//   `Exit code: 0\nWall time: 0.1 seconds\nOutput:\n…`;
// - code-mode `exec` (0.169+): `Script completed\nWall time 0.5 seconds\nOutput:\n` then what the
//   script printed, often the exec_command result as JSON
//   (`{"chunk_id":…,"exit_code":0,"original_token_count":6,"output":"…"}`).
//
// The envelope is split off once (`openEnvelope`), strategies work on the output alone, and
// `sealEnvelope` puts back the envelope's own bytes untouched around the new output: the JSON
// members and their number spellings (serde's `1.0`, which JSON.stringify would write `1`) are
// never re-encoded. One exception, decided from the received bytes alone so that every request
// sends the same: once a text header says the process exited, its `Chunk ID`, `Wall time` and
// (unless Codex cut the output) `Original token count` lines are dropped. They describe that one
// run, not what it printed: nothing refers to a chunk id after the fact (stdin goes to a running
// process's session id, which is kept), and the count is the length of the output that follows.
// Claude Code's own tools send none of it; kept, they cost every Codex output ~25 tokens per
// request and made each history rewrite dearer than the same one natively (bench/README.md).
import { BoundedCache, registerCache } from '../cache.js';
import type { OutputEnvelope } from '../types.js';

export type { OutputEnvelope };

// One header line of the text shapes; a header is one or more of them, then `Output:`.
const HEADER_LINE =
  /^(?:Chunk ID: \S+|Wall time:? [\d.]+ seconds|Process exited with code -?\d+|Process running with session ID \S+|Original token count: \d+|Total output lines: \d+|Exit code: -?\d+|Script completed|Script running with cell ID \S+|Script failed)$/;
const OUTPUT_LINE = 'Output:\n';
const EXITED = /^(?:Process exited with code|Exit code:) -?\d+$/;
const RUN_DETAIL = /^(?:Chunk ID: \S+|Wall time:? [\d.]+ seconds)$/;
const TOKEN_COUNT = /^Original token count: \d+$/;
// Codex's own cut of a long output (codex-rs truncate.rs), which the original count goes with.
const CUT_BY_CODEX = /…\d+ (?:tokens|chars) truncated…|\[\.\.\. omitted \d+ of \d+ lines/;
// A header holds a handful of short lines: an `Output:` line further in is the command's own.
const MAX_HEADER_CHARS = 400;

/** The header without the lines that only describe a finished run (see the top of this file). */
function compactHeader(lines: string[], output: string): string {
  if (!lines.some((line) => EXITED.test(line))) return lines.join('\n');
  const cut = lines.some((line) => line.startsWith('Total output lines')) || CUT_BY_CODEX.test(output);
  return lines.filter((line) => !RUN_DETAIL.test(line) && (cut || !TOKEN_COUNT.test(line))).join('\n');
}

function splitHeader(text: string): { header: string; received: string; rest: string } | undefined {
  const end = text.indexOf(OUTPUT_LINE);
  if (end <= 0 || end > MAX_HEADER_CHARS || text[end - 1] !== '\n') return undefined;
  const lines = text.slice(0, end - 1).split('\n');
  if (!lines.every((line) => HEADER_LINE.test(line))) return undefined;
  const cut = end + OUTPUT_LINE.length;
  const rest = text.slice(cut);
  return { header: `${compactHeader(lines, rest)}\n${OUTPUT_LINE}`, received: text.slice(0, cut), rest };
}

// The members a Codex result object may hold besides `output`; any other member means the JSON
// is some tool's own data (`gh … --json` prints an `output` member too), never unwrapped.
const RESULT_MEMBERS = new Set([
  'metadata',
  'exit_code',
  'duration_seconds',
  'wall_time_seconds',
  'chunk_id',
  'session_id',
  'process_id',
  'original_token_count',
]);
const OUTPUT_MEMBER = /"output"\s*:\s*/g;

const isScalar = (v: unknown) => v === null || ['number', 'string', 'boolean'].includes(typeof v);

function isResultObject(value: unknown): value is { output: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const obj = value as Record<string, unknown>;
  if (typeof obj.output !== 'string') return false;
  return Object.entries(obj).every(
    ([key, v]) =>
      key === 'output' ||
      (RESULT_MEMBERS.has(key) &&
        (isScalar(v) || (typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).every(isScalar)))),
  );
}

/** The output member's place in `text`: where its string literal starts and ends, when that literal is the one JSON.stringify writes. */
function splitJson(text: string): { prefix: string; suffix: string; output: string } | undefined {
  if (text[0] !== '{' || !text.includes('"output"')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isResultObject(value)) return undefined;
  const literal = JSON.stringify(value.output);
  let found: { prefix: string; suffix: string } | undefined;
  for (const m of text.matchAll(OUTPUT_MEMBER)) {
    const start = m.index + m[0].length;
    if (text.startsWith(literal, start)) {
      // Two places that could be the member: which one is cannot be told cheaply; leave it be.
      if (found) return undefined;
      found = { prefix: text.slice(0, start), suffix: text.slice(start + literal.length) };
    }
  }
  return found && { ...found, output: value.output };
}

function open(text: string): OutputEnvelope | null {
  const header = splitHeader(text);
  const body = header ? header.rest : text;
  const headerText = header ? header.received : '';
  // Code mode prints the result object after the header (its parts joined by a newline).
  const lead = header && body[0] === '\n' ? '\n' : '';
  const json = splitJson(body.slice(lead.length));
  if (json) return { prefix: headerText + lead + json.prefix, suffix: json.suffix, json: true, output: json.output };
  if (!header) return null;
  const envelope: OutputEnvelope = { prefix: header.header, suffix: '', json: false, output: header.rest };
  if (header.header !== header.received) envelope.receivedPrefix = header.received;
  return envelope;
}

// Every request re-sends every earlier output, and the writer asks again for the one it rewrites.
const envelopes = registerCache(new BoundedCache<OutputEnvelope | null>(32 * 1024 * 1024));
// What an envelope starts with: most outputs are told apart by their first characters alone.
const ENVELOPE_START = /^(?:\{|Chunk ID: |Wall time|Process |Original token |Total output |Exit code: |Script )/;
const weigh = (e: OutputEnvelope | null) => (e ? e.prefix.length + e.suffix.length + e.output.length : 8);

/** The envelope around a tool output, or undefined when the text is the output itself. */
export function openEnvelope(text: string): OutputEnvelope | undefined {
  if (text.length < 12 || !ENVELOPE_START.test(text)) return undefined;
  return envelopes.getOrCompute(text, open, weigh) ?? undefined;
}

/** `output` put back where the envelope held its original output. */
export function sealEnvelope(envelope: OutputEnvelope, output: string): string {
  return envelope.prefix + (envelope.json ? JSON.stringify(output) : output) + envelope.suffix;
}

const EXIT_CODE = /(?:^|\n)(?:Process exited with code |Exit code: )(-?\d+)\n|"exit_code":\s*(-?\d+)/;

/** The exit code the envelope reports, when it reports one. */
export function envelopeExitCode(envelope: OutputEnvelope): number | undefined {
  const m = EXIT_CODE.exec(envelope.receivedPrefix ?? envelope.prefix) ?? EXIT_CODE.exec(envelope.suffix);
  return m ? Number(m[1] ?? m[2]) : undefined;
}
