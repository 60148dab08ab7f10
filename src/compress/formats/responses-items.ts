// The Responses API's input items, as far as compression reads them: which items are the
// model's tool calls, which carry a tool's output back, and how each counts as a chat message.
// Codex 0.169 sends `custom_tool_call` / `custom_tool_call_output` for its code-mode `exec`
// and freeform tools and `function_call_output` for the rest (local shell and MCP outputs
// included); the Responses API also defines `local_shell_call_output`. Every other item type
// (reasoning, web_search_call, tool_search_output, compaction…) is carried untouched.
import { check, type SchemaName } from '../schemas.js';
import type { ToolCallInfo } from '../types.js';
import { parseArgs } from './content.js';

type Obj = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Call items: the call as strategies see it (id, tool name, arguments when they are a JSON object). */
const CALL_ITEMS: Record<string, (item: Obj, at: string) => ToolCallInfo> = {
  function_call(item, at) {
    check('FunctionCallItem', item, at);
    return { id: item.call_id as string, name: item.name as string, args: parseArgs(item.arguments) };
  },
  // Free-form input (JavaScript for Codex's `exec`, a patch for `apply_patch`): no JSON arguments.
  custom_tool_call(item, at) {
    check('CustomToolCallItem', item, at);
    return { id: item.call_id as string, name: item.name as string, args: parseArgs(item.input) };
  },
  // `action` is `{ type: 'exec', command: [argv…], working_directory… }`: `command` is what the
  // bundles' shell filters read.
  local_shell_call(item) {
    return {
      id: str(item.call_id) ?? str(item.id) ?? '',
      name: 'local_shell',
      args: isObj(item.action) ? item.action : null,
    };
  },
};

/** Output items: all hold the output in `output` (a string or content parts). */
const OUTPUT_ITEMS: Record<string, { schema?: SchemaName; callId(item: Obj): string }> = {
  function_call_output: { schema: 'FunctionCallOutputItem', callId: (item) => item.call_id as string },
  custom_tool_call_output: { schema: 'CustomToolCallOutputItem', callId: (item) => item.call_id as string },
  // The API names the call by `id` here (the call's `call_id`); no check: we only read it.
  local_shell_call_output: { callId: (item) => str(item.call_id) ?? str(item.id) ?? '' },
};

/**
 * The entry of `table` for the item's type: only a string type, only the table's own members (a
 * client's `type` of `{ toString: null }` or `"constructor"` must not reach a prototype).
 */
function entryFor<T>(table: Record<string, T>, type: unknown): T | undefined {
  return typeof type === 'string' && Object.hasOwn(table, type) ? table[type] : undefined;
}

/** The call an item makes, or undefined when it is not a tool call. Throws on a malformed call. */
export function readCallItem(item: Obj, at: string): ToolCallInfo | undefined {
  const read = entryFor(CALL_ITEMS, item.type);
  return read ? read(item, at) : undefined;
}

/** The id of the call an item answers, or undefined when it is not a tool output. Throws on a malformed output. */
export function readOutputItem(item: Obj, at: string): string | undefined {
  const kind = entryFor(OUTPUT_ITEMS, item.type);
  if (!kind) return undefined;
  if (kind.schema) check(kind.schema, item, at);
  return kind.callId(item);
}

/** The item with its output replaced (the output member is `output` for every output item type). */
export function withOutput(item: Obj, output: unknown): Obj {
  return { ...item, output };
}

const TEXT_PARTS = new Set(['input_text', 'output_text']);

function asChatContent(content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  return content.map((p: Obj) =>
    p && typeof p.type === 'string' && TEXT_PARTS.has(p.type) ? { type: 'text', text: p.text } : p,
  );
}

const assistantCall = (name: unknown, args: unknown) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ type: 'function', function: { name, arguments: args } }],
});

/**
 * The chat message an item counts as (the tokenizer module models chat and messages-style
 * messages), so that all three shapes of one conversation count alike. Items with no chat
 * equivalent are returned as they are.
 */
export function asChatMessage(item: unknown): unknown {
  if (!isObj(item)) return item;
  const type = item.type;
  if (entryFor(OUTPUT_ITEMS, type)) return { role: 'tool', content: asChatContent(item.output) };
  if (type === 'function_call') return assistantCall(item.name, item.arguments);
  if (type === 'custom_tool_call') return assistantCall(item.name, item.input);
  if (type === 'local_shell_call') return assistantCall('local_shell', JSON.stringify(item.action ?? null));
  // Tool definitions sent as an input item (Codex's newest models): counted as their JSON, as
  // the tokenizer counts tool shapes it does not model.
  if (type === 'additional_tools') return { role: 'developer', content: JSON.stringify(item.tools ?? null) };
  if (typeof item.role === 'string') return { role: item.role, content: asChatContent(item.content) };
  return item;
}
