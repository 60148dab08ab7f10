// The Codex-shape converter of bench/compress: its tool calls and output envelopes are the ones
// Codex sends (the argv of `shell`, the `cmd` of exec_command as in the recorded fixtures), and
// the engine opens every output it wraps, over every shared dataset, to exactly the text the
// agent saw, sealing it back byte for byte (a finished exec_command run's header without its run details).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cachePricingFor } from '../../../src/catalogue/cache-pricing.js';
import {
  clearCompressionCaches,
  compressPayload,
  withObservedUsage,
  type ConversationState,
} from '../../../src/compress/index.js';
import { classifyCommand, commandText } from '../../../src/compress/filters/classify.js';
import { openEnvelope, sealEnvelope } from '../../../src/compress/formats/output-envelope.js';
import { loadDataset, prefixes, toShape, type Conversation } from '../../../bench/compress/dataset.js';
import { CODEX_FORMATS, toCodexShape } from '../../../bench/compress/codex-shape.js';

type Msg = Record<string, any>;

const DATASETS = '/work/shared/datasets';
const AGENTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'agents');

const session = (calls: { name: string; input: Msg; output: string }[]): Conversation => ({
  name: 'probe',
  native: true,
  headers: { 'x-claude-code-session-id': 's-1', 'x-claude-code-agent-id': 'agent-a' },
  messages: [
    { role: 'user', content: 'Fix the bug.' },
    ...calls.flatMap(({ name, input, output }, i) => [
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `t${i}`, type: 'function', function: { name, arguments: JSON.stringify(input) } }],
      },
      { role: 'tool', tool_call_id: `t${i}`, content: output },
    ]),
  ],
});

const callsOf = (conv: Conversation) =>
  conv.messages.flatMap((m) => (m.tool_calls as Msg[] | undefined) ?? []).map((c) => c.function as Msg);
const outputsOf = (conv: Conversation) =>
  conv.messages.filter((m) => m.role === 'tool').map((m) => m.content as string);

const READ = '     1→import os\n     2→print(os.getcwd())\n';

describe('Codex-shape converter', () => {
  const probe = session([
    { name: 'Read', input: { file_path: '/repo/app.py', offset: 61, limit: 81 }, output: READ },
    { name: 'Bash', input: { command: 'pytest -q' }, output: 'Error: 1 failed' },
    { name: 'Edit', input: { file_path: '/repo/app.py', old_string: 'a', new_string: 'b' }, output: 'Updated.' },
    { name: 'Task', input: { prompt: 'Look around.' }, output: 'Report.' },
  ]);

  it("calls Codex's shell with an argv array and exec_command with a cmd string, as Codex does", () => {
    const [read, bash, edit, task] = callsOf(toCodexShape(probe, 'shell'));
    assert.deepEqual(JSON.parse(read!.arguments), {
      command: ['bash', '-lc', "nl -ba /repo/app.py | sed -n '61,141p'"],
    });
    assert.equal(read!.name, 'shell');
    assert.equal(commandText(JSON.parse(bash!.arguments).command), 'pytest -q');
    assert.equal(edit!.name, 'apply_patch');
    assert.match(
      JSON.parse(edit!.arguments).input,
      /^\*\*\* Begin Patch\n\*\*\* Update File: \/repo\/app.py\n@@\n-a\n\+b/,
    );
    assert.equal(task!.name, 'Task');
    const exec = callsOf(toCodexShape(probe, 'exec'));
    assert.equal(exec[0]!.name, 'exec_command');
    assert.deepEqual(JSON.parse(exec[0]!.arguments), { cmd: "nl -ba /repo/app.py | sed -n '61,141p'" });
    // The recorded Codex CLI passes exec_command the same member.
    const recorded = JSON.parse(readFileSync(join(AGENTS, 'codex', '02-tool-result.json'), 'utf8')).body as Msg;
    const call = (recorded.input as Msg[]).find((i) => i.type === 'custom_tool_call')!;
    assert.match(call.input, /tools\.exec_command\(\{ cmd: /);
  });

  it("wraps outputs in the shell tool's JSON object and exec_command's header, the rest left as it was", () => {
    const [read, bash, edit, task] = outputsOf(toCodexShape(probe, 'shell'));
    const parsed = JSON.parse(read!) as Msg;
    assert.deepEqual(Object.keys(parsed), ['output', 'metadata']);
    assert.deepEqual(Object.keys(parsed.metadata), ['exit_code', 'duration_seconds']);
    assert.equal(parsed.output, '     1\timport os\n     2\tprint(os.getcwd())\n');
    assert.match(read!, /"duration_seconds":\d+\.\d\}\}$/);
    assert.equal(JSON.parse(bash!).metadata.exit_code, 1);
    assert.equal(JSON.parse(edit!).output, 'Updated.');
    assert.equal(task, 'Report.');
    const exec = outputsOf(toCodexShape(probe, 'exec'));
    assert.match(
      exec[1]!,
      /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 1\nOriginal token count: \d+\nOutput:\nError: 1 failed$/,
    );
  });

  it('names the session and a subagent thread as Codex does, and converts the same way every run', () => {
    const codex = toCodexShape(probe, 'exec');
    assert.deepEqual(codex.headers, { 'session-id': 's-1', 'thread-id': 'agent-a' });
    assert.deepEqual(toCodexShape(probe, 'exec'), codex);
  });

  it('every Read of the Claude Code sessions becomes a command the engine classifies as a read', (t) => {
    const dir = join(DATASETS, 'claude-code-sessions');
    if (!existsSync(dir)) return t.skip('no shared datasets on this machine');
    let reads = 0;
    for (const native of loadDataset(dir)) {
      const readIds = new Set(
        native.messages
          .flatMap((m) => (m.tool_calls as Msg[] | undefined) ?? [])
          .filter((c) => c.function.name === 'Read')
          .map((c) => c.id as string),
      );
      for (const format of CODEX_FORMATS) {
        for (const m of toCodexShape(native, format).messages) {
          for (const c of (m.tool_calls as Msg[] | undefined) ?? []) {
            if (!readIds.has(c.id)) continue;
            const args = JSON.parse(c.function.arguments) as Msg;
            const command = commandText(args.command ?? args.cmd)!;
            assert.equal(classifyCommand(command), 'read', command);
            reads++;
          }
        }
      }
    }
    assert.ok(reads >= 2 * 67, `${reads} reads`);
  });

  it('every output of every shared dataset opens to what the agent saw and seals back byte for byte', (t) => {
    if (!existsSync(DATASETS)) return t.skip('no shared datasets on this machine');
    let checked = 0;
    for (const dir of readdirSync(DATASETS)) {
      for (const native of loadDataset(join(DATASETS, dir))) {
        const seen = outputsOf(native);
        const reads = new Set(
          native.messages
            .flatMap((m) => (m.tool_calls as Msg[] | undefined) ?? [])
            .filter((c) => c.function.name === 'Read')
            .map((c) => c.id as string),
        );
        const ids = native.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id as string);
        for (const format of CODEX_FORMATS) {
          const sent = outputsOf(toCodexShape(native, format));
          sent.forEach((text, i) => {
            if (text === seen[i]) return;
            const envelope = openEnvelope(text);
            assert.ok(envelope, `${native.name} ${format} #${i} opens`);
            const expected = reads.has(ids[i]!) ? seen[i]!.replace(/^( *\d+)→/gm, '$1\t') : seen[i];
            assert.equal(envelope.output, expected);
            // A finished exec_command run's header is sent without its run details; the rest as received.
            if (envelope.receivedPrefix === undefined) assert.equal(sealEnvelope(envelope, envelope.output), text);
            else {
              assert.equal(envelope.receivedPrefix + envelope.output, text);
              assert.match(sealEnvelope(envelope, envelope.output), /^Process exited with code \d+\nOutput:\n/);
              assert.ok(sealEnvelope(envelope, envelope.output).endsWith(envelope.output));
            }
            checked++;
          });
        }
      }
    }
    assert.ok(checked > 4000, `${checked} outputs checked`);
  });
});

describe('rewrite decisions on Codex-shaped histories', () => {
  const anthropic = cachePricingFor('anthropic', {
    input_per_mtok: 3,
    output_per_mtok: 15,
    cached_input_per_mtok: 0.3,
    cache_write_per_mtok: 3.75,
  });
  /** The requests at which the boundary moved, and where to. */
  function boundaryMoves(conv: Conversation): string[] {
    clearCompressionCaches();
    let state: ConversationState | undefined;
    const moves: string[] = [];
    prefixes(conv).forEach((messages, i) => {
      const body = JSON.parse(JSON.stringify(toShape(messages, 'messages'))) as Msg;
      const outcome = compressPayload(body, {
        conversation: { pricing: anthropic, state, now: i * 20_000 },
      }).conversation!;
      if (outcome.decision.reason) moves.push(`${i}→${outcome.decision.maskBefore}`);
      state = withObservedUsage(outcome.state, { cacheRead: 1000, cacheWrite: 100 });
    });
    return moves;
  }

  it("moves the boundary where it moves on the native history (the envelope's tokens counted)", (t) => {
    const dir = join(DATASETS, 'claude-code-sessions');
    if (!existsSync(dir)) return t.skip('no shared datasets on this machine');
    // Sessions whose native replay rewrites several times.
    const sessions = loadDataset(dir).filter((c) =>
      /^(issue-724-solution-draft-2-txt-5d|issue-667-.*46c574cf$)/.test(c.name),
    );
    assert.equal(sessions.length, 2);
    // Every rewrite the native history gets, the Codex shape gets too (before its envelope's tokens
    // were counted it was denied some), at a request close to the native one: not always the same,
    // since what eliding a superseded edit saves (strategies/superseded-inputs.ts) is counted on the
    // call's own arguments, an Edit's JSON natively and an apply_patch patch in Codex's shape.
    const requestOf = (move: string) => Number(move.split('→')[0]);
    for (const native of sessions) {
      const moves = boundaryMoves(native);
      assert.ok(moves.length > 0, native.name);
      for (const format of ['shell', 'exec'] as const) {
        const codex = boundaryMoves(toCodexShape(native, format));
        for (const move of moves)
          assert.ok(
            codex.some((m) => Math.abs(requestOf(m) - requestOf(move)) <= 10),
            `${native.name} (${format}): no rewrite near ${move}: ${codex} vs ${moves}`,
          );
      }
    }
  });
});
