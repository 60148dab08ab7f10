// Builds the same conversation in the three request shapes the engine accepts.
export type Shape = 'chat' | 'messages' | 'responses';
export const SHAPES: Shape[] = ['chat', 'messages', 'responses'];

export interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
  output: string;
}
export interface Turn {
  /** A user message before the assistant speaks (instructions). */
  user?: string;
  assistant: string;
  calls: Call[];
}
export interface Dialogue {
  system: string;
  task: string;
  turns: Turn[];
  tools?: { name: string; description: string; parameters: Record<string, unknown> }[];
}

type Obj = Record<string, unknown>;

export function build(d: Dialogue, shape: Shape): Obj {
  if (shape === 'chat') {
    const messages: Obj[] = [
      { role: 'system', content: d.system },
      { role: 'user', content: d.task },
    ];
    for (const t of d.turns) {
      if (t.user) messages.push({ role: 'user', content: t.user });
      const calls = t.calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      }));
      messages.push(
        calls.length
          ? { role: 'assistant', content: t.assistant, tool_calls: calls }
          : { role: 'assistant', content: t.assistant },
      );
      for (const c of t.calls) messages.push({ role: 'tool', tool_call_id: c.id, content: c.output });
    }
    const body: Obj = { model: 'openai/gpt-4o', messages, temperature: 0.2, tags: ['t'] };
    if (d.tools) body.tools = d.tools.map((t) => ({ type: 'function', function: t }));
    return body;
  }
  if (shape === 'messages') {
    const messages: Obj[] = [{ role: 'user', content: d.task }];
    for (const t of d.turns) {
      if (t.user) messages.push({ role: 'user', content: t.user });
      messages.push({
        role: 'assistant',
        content: [
          { type: 'text', text: t.assistant },
          ...t.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })),
        ],
      });
      if (t.calls.length)
        messages.push({
          role: 'user',
          content: t.calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: c.output })),
        });
    }
    const body: Obj = { model: 'claude-sonnet-4-5', max_tokens: 1024, system: d.system, messages };
    if (d.tools)
      body.tools = d.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    return body;
  }
  const input: Obj[] = [{ role: 'user', content: d.task }];
  for (const t of d.turns) {
    if (t.user) input.push({ role: 'user', content: t.user });
    input.push({ role: 'assistant', content: t.assistant });
    for (const c of t.calls)
      input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.args) });
    for (const c of t.calls) input.push({ type: 'function_call_output', call_id: c.id, output: c.output });
  }
  const body: Obj = { model: 'openai/gpt-4o', instructions: d.system, input, max_output_tokens: 500 };
  if (d.tools) body.tools = d.tools.map((t) => ({ type: 'function', ...t }));
  return body;
}

/** The conversation items of a body: messages, or responses input items. */
export function items(body: Obj): Obj[] {
  return (Array.isArray(body.messages) ? body.messages : body.input) as Obj[];
}

/** Tool outputs keyed by call id, whatever the shape. */
export function outputs(body: Obj): Map<string, string> {
  const out = new Map<string, string>();
  for (const it of items(body)) {
    if (it.role === 'tool') out.set(it.tool_call_id as string, it.content as string);
    if (it.type === 'function_call_output') out.set(it.call_id as string, it.output as string);
    if (Array.isArray(it.content)) {
      for (const b of it.content as Obj[])
        if (b.type === 'tool_result') out.set(b.tool_use_id as string, b.content as string);
    }
  }
  return out;
}

/** Tool call ids in order, whatever the shape. */
export function callIds(body: Obj): string[] {
  const ids: string[] = [];
  for (const it of items(body)) {
    for (const c of (it.tool_calls as Obj[] | undefined) ?? []) ids.push(c.id as string);
    if (it.type === 'function_call') ids.push(it.call_id as string);
    if (Array.isArray(it.content))
      for (const b of it.content as Obj[]) if (b.type === 'tool_use') ids.push(b.id as string);
  }
  return ids;
}
