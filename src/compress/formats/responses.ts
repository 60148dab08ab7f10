// 2.3 responses-style request: `function_call` / `function_call_output` items, flat tools.
import { check } from '../schemas.js';
import type { ToolCallInfo, ToolDefinition, ToolResult } from '../types.js';
import { parseArgs, readContent, systemTextOf, writeContent } from './content.js';
import { changed, newResult, newTool, type FormatAdapter } from './shared.js';

type Obj = Record<string, unknown>;

export function readResponses(body: Obj): FormatAdapter {
  check('ResponsesBody', body);
  const items = typeof body.input === 'string' ? [] : (body.input as Obj[]);
  const calls = new Map<string, { info: ToolCallInfo; turn: number }>();
  const results: ToolResult[] = [];
  const slots: number[] = [];
  const system: string[] = typeof body.instructions === 'string' ? [body.instructions] : [];
  let turn = -1;
  let lastAssistantItem = -1;
  let previous: unknown = undefined;

  items.forEach((item, i) => {
    const at = `input[${i}]`;
    if (item.type === 'function_call' || item.role === 'assistant') lastAssistantItem = i;
    if (item.type === 'function_call') {
      check('FunctionCallItem', item, at);
      // Parallel calls arrive as consecutive items; they form one turn.
      if (previous !== 'function_call') turn++;
      const id = item.call_id as string;
      calls.set(id, { info: { id, name: item.name as string, args: parseArgs(item.arguments) }, turn });
    } else if (item.type === 'function_call_output') {
      check('FunctionCallOutputItem', item, at);
      const id = item.call_id as string;
      const call = calls.get(id);
      const { text, editable } = readContent(item.output);
      results.push(newResult(id, call?.info, call?.turn ?? Math.max(turn, 0), text, editable, false, i));
      slots.push(i);
    } else if (item.type === undefined || item.type === 'message') {
      check('InputMessageItem', item, at);
      if (item.role === 'system' || item.role === 'developer') system.push(systemTextOf(item.content));
    }
    if (item.type !== 'reasoning') previous = item.type;
  });

  const tools: ToolDefinition[] = [];
  const toolSlots: number[] = [];
  ((body.tools as Obj[] | undefined) ?? []).forEach((raw, i) => {
    check('ResponsesTool', raw, `tools[${i}]`);
    if (raw.type !== 'function') return; // built-in tools (web_search…) are not ours to rewrite
    check('ResponsesFunctionTool', raw, `tools[${i}]`);
    tools.push(newTool(raw.name as string, raw.description, raw.parameters, raw));
    toolSlots.push(i);
  });

  const conversation = {
    format: 'responses' as const,
    systemText: system.join('\n'),
    results,
    tools,
    turnCount: turn + 1,
    lastAssistantItem,
  };
  return {
    conversation,
    write() {
      const out: Obj = { ...body };
      if (results.some(changed)) {
        const next = items.slice();
        results.forEach((r, k) => {
          if (!changed(r)) return;
          const at = slots[k]!;
          next[at] = { ...items[at], output: writeContent(items[at]!.output, r.text) };
        });
        out.input = next;
      }
      if (tools.some((t) => t.changed)) {
        const next = (body.tools as Obj[]).slice();
        tools.forEach((t, k) => {
          if (!t.changed) return;
          const tool: Obj = { ...t.raw };
          if (t.description === undefined) delete tool.description;
          else tool.description = t.description;
          if (t.parameters !== undefined) tool.parameters = t.parameters;
          next[toolSlots[k]!] = tool;
        });
        out.tools = next;
      }
      return out;
    },
  };
}
