// 2.2 messages-style request: Anthropic content blocks `tool_use` / `tool_result`, flat tools
// with `input_schema`, `system` as a string or text blocks.
import { check } from '../schemas.js';
import type { ToolCallInfo, ToolDefinition, ToolResult } from '../types.js';
import { readContent, systemTextOf, writeContent } from './content.js';
import { CalledTools, changed, newResult, newTool, type FormatAdapter } from './shared.js';

type Obj = Record<string, unknown>;

export function readMessages(body: Obj): FormatAdapter {
  check('MessagesBody', body);
  const messages = body.messages as Obj[];
  const calls = new Map<string, { info: ToolCallInfo; turn: number }>();
  const results: ToolResult[] = [];
  const slots: [number, number][] = [];
  let turn = -1;
  let lastAssistantItem = -1;
  const called = new CalledTools();

  messages.forEach((msg, i) => {
    check('MessagesMessage', msg, `messages[${i}]`);
    if (msg.role === 'assistant') lastAssistantItem = i;
    if (!Array.isArray(msg.content)) return;
    const blocks = msg.content as Obj[];
    let sawToolUse = false;
    blocks.forEach((block, j) => {
      const at = `messages[${i}].content[${j}]`;
      if (block.type === 'tool_use') {
        check('ToolUseBlock', block, at);
        if (!sawToolUse) turn++;
        sawToolUse = true;
        const input =
          block.input && typeof block.input === 'object' && !Array.isArray(block.input) ? (block.input as Obj) : null;
        calls.set(block.id as string, {
          info: { id: block.id as string, name: block.name as string, args: input, argsItem: i },
          turn,
        });
        called.add(block.name as string);
      } else if (block.type === 'tool_result') {
        check('ToolResultBlock', block, at);
        const id = block.tool_use_id as string;
        const call = calls.get(id);
        const { text, editable, envelope } = readContent(block.content);
        results.push(
          newResult(
            id,
            call?.info,
            call?.turn ?? Math.max(turn, 0),
            text,
            editable,
            block.is_error === true,
            i,
            envelope,
          ),
        );
        slots.push([i, j]);
      }
    });
  });

  const tools: ToolDefinition[] = [];
  const toolSlots: number[] = [];
  const toolList = (body.tools as Obj[] | undefined) ?? [];
  toolList.forEach((raw, i) => {
    check('MessagesTool', raw, `tools[${i}]`);
    // Server tools (web_search_…) carry a type and no schema: nothing to minify.
    if (raw.input_schema === undefined && raw.description === undefined) return;
    // Only a client tool (no type, or `custom`) is ever dropped; typed ones are Anthropic's.
    const droppable = raw.type === undefined || raw.type === 'custom';
    tools.push(newTool(raw.name as string, raw.description, raw.input_schema, raw, { droppable }));
    toolSlots.push(i);
  });

  const conversation = {
    format: 'messages' as const,
    systemText: systemTextOf(body.system),
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
      const out: Obj = { ...body };
      const rewritten = [...calls.values()].filter((c) => c.info.rewrittenArgs !== undefined);
      if (results.some(changed) || rewritten.length > 0) {
        const next = messages.slice();
        for (const { info } of rewritten) {
          const i = info.argsItem!;
          const blocks = (next[i]!.content as Obj[]).map((b) =>
            b.type === 'tool_use' && b.id === info.id ? { ...b, input: info.rewrittenArgs } : b,
          );
          next[i] = { ...next[i], content: blocks };
        }
        results.forEach((r, k) => {
          if (!changed(r)) return;
          const [i, j] = slots[k]!;
          const msg = next[i]!;
          const blocks = (msg.content as Obj[]).slice();
          const block = blocks[j]!;
          blocks[j] = { ...block, content: writeContent(block.content, r.text) };
          next[i] = { ...msg, content: blocks };
        });
        out.messages = next;
      }
      if (tools.some((t) => t.changed || t.dropped)) {
        const next: (Obj | undefined)[] = (body.tools as Obj[]).slice();
        tools.forEach((t, k) => {
          if (t.dropped) next[toolSlots[k]!] = undefined;
          if (!t.changed || t.dropped) return;
          const tool: Obj = { ...t.raw };
          if (t.description === undefined) delete tool.description;
          else tool.description = t.description;
          if (t.parameters !== undefined) tool.input_schema = t.parameters;
          next[toolSlots[k]!] = tool;
        });
        out.tools = next.filter((t) => t !== undefined);
      }
      return out;
    },
  };
}
