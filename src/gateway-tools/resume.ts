import type { ChatMessage } from '../canonical/chat-request.js';
import type { PendingOperation } from './pending-operations.js';

/**
 * Puts a deferred turn back together. The client's history holds the assistant message with
 * only its own tool calls, followed by its tool results; the model produced more calls than
 * that. The assistant message gets every call back in the model's order, and the tool results
 * that follow it are reordered to match, the stored gateway results filling their places.
 * Returns undefined when no assistant message carries the client's calls of this operation.
 * Idempotent: a history that already holds the gateway calls or results is not duplicated.
 */
export function mergePendingOperation(messages: ChatMessage[], operation: PendingOperation): ChatMessage[] | undefined {
  const gatewayIds = new Set(operation.gatewayResults.map((r) => r.tool_call_id));
  const clientIds = new Set(operation.toolCalls.filter((c) => !gatewayIds.has(c.id)).map((c) => c.id));
  const at = findLastIndex(
    messages,
    (m) => m.role === 'assistant' && (m.tool_calls ?? []).some((c) => clientIds.has(c.id)),
  );
  if (at < 0) return undefined;

  const assistant = messages[at]!;
  let end = at + 1;
  while (end < messages.length && messages[end]!.role === 'tool') end++;
  const results = messages.slice(at + 1, end);

  // Calls: the model's order; anything the client added that we do not know stays, after them.
  const known = new Set(operation.toolCalls.map((c) => c.id));
  const calls = operation.toolCalls.map((stored) => assistant.tool_calls!.find((c) => c.id === stored.id) ?? stored);
  for (const call of assistant.tool_calls ?? []) if (!known.has(call.id)) calls.push(call);

  const byId = new Map<string, ChatMessage>();
  for (const result of results)
    if (result.tool_call_id && !byId.has(result.tool_call_id)) byId.set(result.tool_call_id, result);
  const stored = new Map(operation.gatewayResults.map((r) => [r.tool_call_id, r]));
  const ordered: ChatMessage[] = [];
  for (const call of calls) {
    const result = byId.get(call.id);
    if (result) ordered.push(result);
    else if (stored.has(call.id))
      ordered.push({ role: 'tool', tool_call_id: call.id, content: stored.get(call.id)!.content });
  }
  const placed = new Set(ordered);
  for (const result of results) if (!placed.has(result)) ordered.push(result);

  return [...messages.slice(0, at), { ...assistant, tool_calls: calls }, ...ordered, ...messages.slice(end)];
}

function findLastIndex<T>(items: T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}
