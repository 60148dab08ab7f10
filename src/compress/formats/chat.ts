// 2.1 chat request: assistant `tool_calls`, tool-role results, `{type:'function', function}` tools.
import { check } from '../schemas.js';
import { CompressionInputError } from '../errors.js';
import type { ToolCallInfo, ToolDefinition, ToolResult } from '../types.js';
import { parseArgs, readContent, systemTextOf, writeContent } from './content.js';
import { CalledTools, changed, newResult, newTool, type FormatAdapter } from './shared.js';

type Msg = Record<string, unknown>;

export function readChat(body: Record<string, unknown>): FormatAdapter {
  check('ChatBody', body);
  const messages = body.messages as Msg[];
  const calls = new Map<string, { info: ToolCallInfo; turn: number }>();
  const results: ToolResult[] = [];
  const slots: number[] = [];
  const system: string[] = [];
  let turn = -1;
  let lastAssistantItem = -1;
  const called = new CalledTools();

  messages.forEach((msg, i) => {
    // `tool_calls: null` (a response message echoed back) means no calls.
    check('ChatMessage', msg.tool_calls === null ? { ...msg, tool_calls: undefined } : msg, `messages[${i}]`);
    const role = msg.role;
    if (role === 'system' || role === 'developer') system.push(systemTextOf(msg.content));
    if (role === 'assistant') lastAssistantItem = i;
    const toolCalls = msg.tool_calls as { id: string; function: { name: string; arguments: string } }[] | undefined;
    if (role === 'assistant' && toolCalls?.length) {
      turn++;
      for (const c of toolCalls) {
        calls.set(c.id, {
          info: { id: c.id, name: c.function.name, args: parseArgs(c.function.arguments), argsItem: i },
          turn,
        });
        called.add(c.function.name);
      }
    }
    if (role === 'tool') {
      if (typeof msg.tool_call_id !== 'string') {
        throw new CompressionInputError('A tool message needs a tool_call_id.', `messages[${i}].tool_call_id`);
      }
      const call = calls.get(msg.tool_call_id);
      const { text, editable, envelope } = readContent(msg.content);
      results.push(
        newResult(msg.tool_call_id, call?.info, call?.turn ?? Math.max(turn, 0), text, editable, false, i, envelope),
      );
      slots.push(i);
    }
  });

  const tools: ToolDefinition[] = [];
  const toolSlots: number[] = [];
  const toolList = (body.tools as Msg[] | undefined) ?? [];
  toolList.forEach((raw, i) => {
    check('ChatTool', raw, `tools[${i}]`);
    const fn = raw.function as Msg;
    const droppable = raw.type === undefined || raw.type === 'function';
    tools.push(newTool(fn.name as string, fn.description, fn.parameters, raw, { droppable }));
    toolSlots.push(i);
  });

  const conversation = {
    format: 'chat' as const,
    systemText: system.join('\n'),
    results,
    tools,
    turnCount: turn + 1,
    lastAssistantItem,
    calledNames: called.names,
    calledGroups: called.groups,
    toolCount: toolList.length,
  };
  return {
    conversation,
    write() {
      const out: Record<string, unknown> = { ...body };
      const rewritten = [...calls.values()].filter((c) => c.info.rewrittenArgs !== undefined);
      if (results.some(changed) || rewritten.length > 0) {
        const next = messages.slice();
        results.forEach((r, k) => {
          if (!changed(r)) return;
          const at = slots[k]!;
          next[at] = { ...messages[at], content: writeContent(messages[at]!.content, r.text) };
        });
        for (const { info } of rewritten) {
          const at = info.argsItem!;
          const toolCalls = (next[at]!.tool_calls as Msg[]).map((c) =>
            c.id === info.id
              ? { ...c, function: { ...(c.function as Msg), arguments: JSON.stringify(info.rewrittenArgs) } }
              : c,
          );
          next[at] = { ...next[at], tool_calls: toolCalls };
        }
        out.messages = next;
      }
      if (tools.some((t) => t.changed || t.dropped)) {
        const next: (Msg | undefined)[] = (body.tools as Msg[]).slice();
        tools.forEach((t, k) => {
          if (t.dropped) next[toolSlots[k]!] = undefined;
          if (!t.changed || t.dropped) return;
          const fn = { ...(t.raw.function as Msg) };
          if (t.description === undefined) delete fn.description;
          else fn.description = t.description;
          if (t.parameters !== undefined) fn.parameters = t.parameters;
          next[toolSlots[k]!] = { ...t.raw, function: fn };
        });
        out.tools = next.filter((t) => t !== undefined);
      }
      return out;
    },
  };
}
