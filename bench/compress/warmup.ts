// A synthetic agent conversation, unrelated to the dataset, that the benchmark compresses
// before it starts timing. A running gateway has compiled its code paths long before a given
// agent connects; a benchmark process has not, and V8's first-run compilation of the engine
// and its regular expressions would otherwise be charged to the first conversations measured.
// Every cache (the tokenizer's piece memo included) is emptied afterwards, so nothing of this
// conversation's text helps the measured requests.
//
// Two conversations: an SWE-agent-like one (text commands, line-addressed edits) and a
// function-calling one whose tools and outputs reach every filter and code path of the engine
// (warmup-outputs.ts). Timing only the first showed up to a third more CPU time than a second
// pass over the data with every cache emptied but the code compiled: V8 was still compiling
// paths the first had never taken.
import { TURNS, type Gen } from './warmup-outputs.js';

type Msg = Record<string, unknown>;

/** mulberry32: deterministic, so every run warms up on the same text. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(seed: number): Gen {
  const rand = random(seed);
  const int = (max: number) => Math.floor(rand() * max);
  const pick = <T>(items: readonly T[]) => items[int(items.length)]!;
  const word = () => Array.from({ length: 3 + int(7) }, () => String.fromCharCode(97 + int(26))).join('');
  const codeLine = () =>
    `${' '.repeat(4 * int(3))}${pick(['def', 'return', 'if', 'for', 'self.', 'x =', '#'])} ${word()}_${word()}(${word()}, ${int(1000)}):`;
  return { rand, pick, word, codeLine, int };
}

/** The conversations to compress before timing, each ending with an assistant turn. */
export function warmupConversations(): Msg[][] {
  return [warmupConversation(), toolConversation()];
}

/** A function-calling agent with many tools: every output kind, some outputs seen twice. */
function toolConversation(turns = 60): Msg[] {
  const g = generator(11);
  const messages: Msg[] = [
    {
      role: 'system',
      content: `You are a coding agent. Use the tools; read files before editing them.\n${Array.from({ length: 30 }, g.codeLine).join('\n')}`,
    },
    {
      role: 'user',
      content: `Please fix the failing job. ${Array.from({ length: 80 }, g.word).join(' ')} — merci, danke, 谢谢.`,
    },
  ];
  const earlier: { tool: string; args: Record<string, unknown>; output: string }[] = [];
  for (let i = 0; i < turns; i++) {
    // Every kind in turn, and now and then an exact repeat of an earlier call.
    const turn = i > 8 && i % 7 === 0 ? earlier[g.int(earlier.length)]! : TURNS[i % TURNS.length]!(g);
    earlier.push(turn);
    const id = `call_w${i}`;
    messages.push({
      role: 'assistant',
      content: i % 3 === 0 ? '' : `Step ${i}: ${turn.tool}.`,
      tool_calls: [{ id, type: 'function', function: { name: turn.tool, arguments: JSON.stringify(turn.args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: turn.output });
  }
  messages.push({ role: 'assistant', content: 'Fixed.' });
  return messages;
}

export function warmupConversation(turns = 40): Msg[] {
  const { rand, pick, word, codeLine } = generator(7);
  const footer = (file: string) => `(Open file: /repo/${file})\n(Current directory: /repo)\nbash-$`;
  const outputs: (() => { command: string; output: string })[] = [
    () => {
      const file = `${word()}/${word()}.py`;
      const start = 1 + Math.floor(rand() * 200);
      const lines = Array.from({ length: 100 }, (_, i) => `${start + i}:${codeLine()}`);
      return {
        command: `open ${file} ${start}`,
        output: `[File: /repo/${file} (400 lines total)]\n${lines.join('\n')}\n(${300 - start} more lines below)\n${footer(file)}`,
      };
    },
    () => ({
      command: 'pytest -x tests/',
      output: [
        '============================= test session starts ==============================',
        ...Array.from({ length: 30 }, () => `tests/test_${word()}.py::test_${word()} PASSED`),
        `tests/test_${word()}.py::test_${word()} FAILED`,
        'Traceback (most recent call last):',
        `  File "/repo/${word()}.py", line ${Math.floor(rand() * 500)}, in ${word()}`,
        `AssertionError: ${word()} != ${word()}`,
        '========================= 1 failed, 30 passed in 1.23s =========================',
        footer('n/a'),
      ].join('\n'),
    }),
    () => ({
      command: `search_dir ${word()}`,
      output: `Found 12 matches in /repo:\n${Array.from({ length: 12 }, () => `/repo/${word()}/${word()}.py:${Math.floor(rand() * 900)}:    ${codeLine()}`).join('\n')}\n${footer('n/a')}`,
    }),
    () => ({
      command: `pip install ${word()}`,
      output: Array.from(
        { length: 20 },
        () =>
          `Requirement already satisfied: ${word()} in /usr/lib/python3/site-packages (${Math.floor(rand() * 9)}.${Math.floor(rand() * 9)})`,
      ).join('\n'),
    }),
    () => ({
      command: `edit ${Math.floor(rand() * 90)}:${Math.floor(rand() * 90)}`,
      output: `File updated. Please review the changes.\n${footer(`${word()}.py`)}`,
    }),
  ];
  const messages: Msg[] = [
    {
      role: 'system',
      content: `You are an agent. Commands: open, edit, search_dir, pytest.\n${Array.from({ length: 40 }, codeLine).join('\n')}`,
    },
    { role: 'user', content: `Fix the bug in ${word()}. ${Array.from({ length: 60 }, word).join(' ')}` },
  ];
  for (let i = 0; i < turns; i++) {
    const { command, output } = pick(outputs)();
    const id = `warmup_${i}`;
    messages.push({
      role: 'assistant',
      content: `Next I will run ${command}.`,
      tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: output });
  }
  messages.push({ role: 'assistant', content: 'Done.' });
  return messages;
}
