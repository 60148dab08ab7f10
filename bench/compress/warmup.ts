// A synthetic agent conversation, unrelated to the dataset, that the benchmark compresses
// before it starts timing. A running gateway has compiled its code paths long before a given
// agent connects; a benchmark process has not, and V8's first-run compilation of the engine
// and its regular expressions would otherwise be charged to the first conversations measured.
// Every cache (the tokenizer's piece memo included) is emptied afterwards, so nothing of this
// conversation's text helps the measured requests.

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

export function warmupConversation(turns = 40): Msg[] {
  const rand = random(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
  const word = () => Array.from({ length: 3 + Math.floor(rand() * 7) }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
  const codeLine = () => `${' '.repeat(4 * Math.floor(rand() * 3))}${pick(['def', 'return', 'if', 'for', 'self.', 'x =', '#'])} ${word()}_${word()}(${word()}, ${Math.floor(rand() * 1000)}):`;
  const footer = (file: string) => `(Open file: /repo/${file})\n(Current directory: /repo)\nbash-$`;
  const outputs: (() => { command: string; output: string })[] = [
    () => {
      const file = `${word()}/${word()}.py`;
      const start = 1 + Math.floor(rand() * 200);
      const lines = Array.from({ length: 100 }, (_, i) => `${start + i}:${codeLine()}`);
      return { command: `open ${file} ${start}`, output: `[File: /repo/${file} (400 lines total)]\n${lines.join('\n')}\n(${300 - start} more lines below)\n${footer(file)}` };
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
    () => ({ command: `pip install ${word()}`, output: Array.from({ length: 20 }, () => `Requirement already satisfied: ${word()} in /usr/lib/python3/site-packages (${Math.floor(rand() * 9)}.${Math.floor(rand() * 9)})`).join('\n') }),
    () => ({ command: `edit ${Math.floor(rand() * 90)}:${Math.floor(rand() * 90)}`, output: `File updated. Please review the changes.\n${footer(`${word()}.py`)}` }),
  ];
  const messages: Msg[] = [
    { role: 'system', content: `You are an agent. Commands: open, edit, search_dir, pytest.\n${Array.from({ length: 40 }, codeLine).join('\n')}` },
    { role: 'user', content: `Fix the bug in ${word()}. ${Array.from({ length: 60 }, word).join(' ')}` },
  ];
  for (let i = 0; i < turns; i++) {
    const { command, output } = pick(outputs)();
    const id = `warmup_${i}`;
    messages.push({ role: 'assistant', content: `Next I will run ${command}.`, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: output });
  }
  messages.push({ role: 'assistant', content: 'Done.' });
  return messages;
}
