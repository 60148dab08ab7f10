// 2.3 responses-style request: input items (messages, tool calls and their outputs of every type
// in responses-items.ts) and tools (flat, in namespaces, or in an `additional_tools` item).
// Items of other types are carried untouched; nothing is added or reordered, and only an
// `additional_tools` item whose every tool the tool-surface decision dropped is removed.
import { check } from '../schemas.js';
import type { ToolCallInfo, ToolDefinition, ToolResult } from '../types.js';
import { readContent, systemTextOf, writeContent } from './content.js';
import { readCallItem, readOutputItem, withOutput } from './responses-items.js';
import { countToolList, readToolList, writeToolList, type PlacedTool } from './responses-tools.js';
import { CalledTools, changed, newResult, type FormatAdapter } from './shared.js';

type Obj = Record<string, unknown>;

export function readResponses(body: Obj): FormatAdapter {
  check('ResponsesBody', body);
  const items = typeof body.input === 'string' ? [] : (body.input as Obj[]);
  const calls = new Map<string, { info: ToolCallInfo; turn: number }>();
  const results: ToolResult[] = [];
  const slots: number[] = [];
  const system: string[] = typeof body.instructions === 'string' ? [body.instructions] : [];
  const tools: ToolDefinition[] = [];
  const topTools = readToolList((body.tools as Obj[] | undefined) ?? [], 'tools', tools);
  const itemTools = new Map<number, PlacedTool[]>();
  let turn = -1;
  let lastAssistantItem = -1;
  let previousWasCall = false;
  const called = new CalledTools();
  let toolCount = countToolList(body.tools);

  items.forEach((item, i) => {
    const at = `input[${i}]`;
    const call = readCallItem(item, at);
    if (call || item.role === 'assistant') lastAssistantItem = i;
    if (call) {
      // Parallel calls arrive as consecutive items (reasoning between them); they form one turn.
      if (!previousWasCall) turn++;
      // Only a function call's arguments are a JSON object the writer can put back.
      if (item.type === 'function_call' && call.args) call.argsItem = i;
      calls.set(call.id, { info: call, turn });
      called.add(call.name, typeof item.namespace === 'string' ? item.namespace : undefined);
    }
    const answered = call ? undefined : readOutputItem(item, at);
    if (answered !== undefined) {
      const origin = calls.get(answered);
      const { text, editable, envelope } = readContent(item.output);
      results.push(
        newResult(answered, origin?.info, origin?.turn ?? Math.max(turn, 0), text, editable, false, i, envelope),
      );
      slots.push(i);
    } else if (item.type === undefined || item.type === 'message') {
      check('InputMessageItem', item, at);
      if (item.role === 'system' || item.role === 'developer') system.push(systemTextOf(item.content));
    } else if (item.type === 'additional_tools' && Array.isArray(item.tools)) {
      itemTools.set(i, readToolList(item.tools as Obj[], `${at}.tools`, tools));
      toolCount += countToolList(item.tools);
    }
    if (item.type !== 'reasoning') previousWasCall = call !== undefined;
  });

  const conversation = {
    format: 'responses' as const,
    systemText: system.join('\n'),
    results,
    tools,
    turnCount: turn + 1,
    lastAssistantItem,
    calledNames: called.names,
    calledGroups: called.groups,
    toolCount,
  };
  return {
    conversation,
    write() {
      const out: Obj = { ...body };
      const next: (Obj | undefined)[] = items.slice();
      let itemsChanged = false;
      results.forEach((r, k) => {
        if (!changed(r)) return;
        const at = slots[k]!;
        next[at] = withOutput(items[at]!, writeContent(items[at]!.output, r.text));
        itemsChanged = true;
      });
      for (const { info } of calls.values()) {
        if (info.rewrittenArgs === undefined) continue;
        const at = info.argsItem!;
        next[at] = { ...items[at], arguments: JSON.stringify(info.rewrittenArgs) };
        itemsChanged = true;
      }
      for (const [at, placed] of itemTools) {
        const list = writeToolList(items[at]!.tools as Obj[], placed);
        if (!list) continue;
        // An item whose every tool was dropped goes: it declared nothing else.
        next[at] = list.length === 0 ? undefined : { ...items[at], tools: list };
        itemsChanged = true;
      }
      if (itemsChanged) out.input = next.filter((item) => item !== undefined);
      const list = writeToolList((body.tools as Obj[] | undefined) ?? [], topTools);
      if (list) out.tools = list;
      return out;
    },
  };
}
