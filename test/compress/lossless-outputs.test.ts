// Item 3 of issue 28, over every real session the project holds: what the agent asked to read
// (a Read with or without offset/limit, a shell `cat`/`sed -n`/`nl -ba` view, SWE-agent's file
// window), a subagent's report and an edit's result are never cut. The compressed output, its
// reversible encodings undone, holds every line of the original in order. The encodings undone
// here are written independently of the engine: references to lines seen before
// (helpers/expand.ts), `[Identical to the output of tool call X above.]`, `[… previous line
// repeated N more times]`, `[Same as the previous T output.]`, runs of CI log rows under one `[… N rows of: job\tstep\tdateT …]` header,
// and line numbers moved into a `[lines a-b; line numbers removed]`
// header (compared without the number prefix). Terminal escapes, `\r` redraws and the status footer lines
// SWE-agent repeats after every output are not content and are left out of the comparison.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compressPayload, type BundleName } from '../../src/compress/index.js';
import { classifyCommand, commandText } from '../../src/compress/filters/classify.js';
import { normalize } from '../../src/compress/filters/normalize.js';
import { footer } from '../../src/compress/filters/status-footer.js';
import { loadDataset, toShape } from '../../bench/compress/dataset.js';
import { expandReferences } from './helpers/expand.js';

const DATASETS = '/work/shared/datasets';

// Tools whose output the agent asked for, by name, across the agents of the datasets.
const ASKED_FOR_TOOLS = new Set([
  'Read',
  'Task',
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'open',
  'goto',
  'scroll_up',
  'scroll_down',
  'str_replace_editor',
  'create',
  'edit',
]);

type Msg = Record<string, unknown>;
interface Call {
  name: string;
  args: Record<string, unknown>;
}

function askedFor(call: Call): boolean {
  if (ASKED_FOR_TOOLS.has(call.name)) return true;
  const command = commandText(call.args.command);
  return call.name.toLowerCase() === 'bash' && command !== undefined && classifyCommand(command) === 'read';
}

const NUMBER_PREFIX = /^ *\d{1,7}(?:→|\t|:|\| ?)/;
const REPEATED = /^\[… previous line repeated ([\d,]+) more times\]$/;
const LOG_ROWS = /^\[… ([\d,]+) rows of: ([^\t]*)\t([^\t]*)\t(\d{4}-\d\d-\d\d)T …\]$/;
const LOG_ROW = /^(\d+[:-])?(\uFEFF?)(\d\d:\d\d:\d\d)/;
const IDENTICAL = /^\[Identical to the output of tool call (\S+) above\.\]$/;
const SAME_AS_PREVIOUS = /^\[Same as the previous (\S+) output\.\]$/;

/** The output's content lines: escapes gone, footer left out, number prefixes removed. */
function contentLines(text: string, footerLines: readonly string[]): string[] {
  const lines = normalize(text, { fileContent: true }).trimEnd().split('\n');
  let end = lines.length;
  while (end > 0 && (footerLines.includes(lines[end - 1]!.trimEnd()) || lines[end - 1]!.trim() === '')) end--;
  return lines.slice(0, end).map((l) => l.replace(NUMBER_PREFIX, ''));
}

function restore(
  text: string,
  visible: Map<string, string>,
  args: Map<string, Record<string, unknown>>,
  previousOfTool: Map<string, string>,
): string {
  const previous = SAME_AS_PREVIOUS.exec(text);
  if (previous) return previousOfTool.get(previous[1]!)!;
  const pointer = IDENTICAL.exec(text);
  if (pointer) return restore(visible.get(pointer[1]!)!, visible, args, previousOfTool);
  const out: string[] = [];
  let rows: { left: number; job: string; step: string; date: string } | undefined;
  for (const line of expandReferences(text, visible, args).split('\n')) {
    const repeated = REPEATED.exec(line);
    const logRows = LOG_ROWS.exec(line);
    const row = rows && rows.left > 0 ? LOG_ROW.exec(line) : null;
    if (rows && row) {
      // `[P][BOM]time text` under a header stands for `[P]job\tstep\t[BOM]dateTtime text`.
      out.push(
        `${row[1] ?? ''}${rows.job}\t${rows.step}\t${row[2]}${rows.date}T${line.slice((row[1] ?? '').length + row[2]!.length)}`,
      );
      rows.left--;
    } else if (logRows)
      rows = { left: Number(logRows[1]!.replace(/,/g, '')), job: logRows[2]!, step: logRows[3]!, date: logRows[4]! };
    else if (repeated) for (let k = 0; k < Number(repeated[1]!.replace(/,/g, '')); k++) out.push(out[out.length - 1]!);
    else if (!/^\[lines \d+-\d+; line numbers removed\]$/.test(line)) out.push(line);
  }
  return out.join('\n');
}

/** Whether `needle` is a subsequence of `hay` (the footer may be dropped from the middle of neither). */
function missingLine(needle: string[], hay: string[]): string | undefined {
  let at = 0;
  for (const line of needle) {
    while (at < hay.length && hay[at] !== line) at++;
    if (at === hay.length) return line;
    at++;
  }
  return undefined;
}

function sessions(): { dataset: string; bundle: BundleName | undefined; name: string; messages: Msg[] }[] {
  if (!existsSync(DATASETS)) return [];
  return readdirSync(DATASETS)
    .sort()
    .flatMap((dataset) => {
      const dir = join(DATASETS, dataset);
      const bundle: BundleName | undefined = dataset.startsWith('claude-code') ? 'claude' : undefined;
      return loadDataset(dir).map((c) => ({ dataset, bundle, name: c.name, messages: c.messages }));
    });
}

// The datasets live beside the repository (/work/shared), not in it: elsewhere there is nothing to check.
const skip = existsSync(DATASETS) ? false : `no shared datasets at ${DATASETS}`;

describe('what the agent asked for is never cut, over every shared dataset', { skip }, () => {
  const all = sessions();

  it('finds the shared datasets (this property is about real sessions)', () => {
    assert.ok(all.length >= 60, `only ${all.length} sessions found under ${DATASETS}`);
  });

  it('every read, ranged view, subagent report and edit result keeps every line', () => {
    let checked = 0;
    for (const session of all) {
      const body = toShape(session.messages, 'chat');
      const compressed = compressPayload(body, { bundle: session.bundle }).body as { messages: Msg[] };
      // Built in message order: a trajectory may reuse a call id, and a reference names the call
      // the engine had seen last under that id.
      const calls = new Map<string, Call>();
      const args = new Map<string, Record<string, unknown>>();
      const visible = new Map<string, string>();
      const previousOfTool = new Map<string, string>();
      session.messages.forEach((m, i) => {
        for (const tc of (m.tool_calls as { id: string; function: { name: string; arguments: string } }[]) ?? []) {
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(tc.function.arguments) as Record<string, unknown>;
          } catch {
            // Not JSON: nothing to classify by.
          }
          calls.set(tc.id, { name: tc.function.name, args: parsed });
          args.set(tc.id, parsed);
        }
        if (m.role !== 'tool' || typeof m.content !== 'string') return;
        const id = m.tool_call_id as string;
        const after = compressed.messages[i]!.content as string;
        const restoredText = restore(after, visible, args, previousOfTool);
        visible.set(id, after);
        const name = calls.get(id)?.name;
        if (name !== undefined) previousOfTool.set(name, m.content);
        const call = calls.get(id);
        if (!call || !askedFor(call)) return;
        const ownFooter = footer(m.content);
        const original = contentLines(m.content, ownFooter);
        const restored = contentLines(restoredText, ownFooter);
        const lost = missingLine(
          original.filter((l) => !ownFooter.includes(l.trimEnd())),
          restored,
        );
        assert.equal(
          lost,
          undefined,
          `${session.dataset}/${session.name}, ${call.name} ${id}: line lost: ${JSON.stringify(lost)}`,
        );
        checked++;
      });
    }
    assert.ok(checked >= 300, `only ${checked} outputs checked`);
  });
});
