// Which history a request belongs to. Agents resend the whole history every turn, so a history is
// recognised by what never changes in it: its head (the items before the first assistant turn:
// the task) and its first assistant turn, whose tool call ids (or text) the model wrote for this
// history alone. The session headers (session-headers.ts) come first when the client sends them.
//
// The first assistant turn is what tells apart two sessions that share their head, as a
// Codex-style client's do (the same <environment_context> and AGENTS.md for every session in a
// directory, and no session header through some proxies); it also tells a post-compaction history
// (a summary replaces the old turns) from the one it continues. A history's first request has no
// assistant turn yet, and nothing to mask either: it is keyed by its head alone (its `head` id), and
// the second request, once keyed by its own first turn, starts from that state. Always scoped to
// the API key by the caller.
import { createHash } from 'node:crypto';
import { detectFormat } from './formats/index.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const RESPONSES_CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'tool_search_call']);

/** Whether a responses item is the model's: a message of the assistant or a call it made. */
function isResponsesAssistant(item: unknown): item is Obj {
  return (
    isObj(item) && (item.role === 'assistant' || (typeof item.type === 'string' && RESPONSES_CALLS.has(item.type)))
  );
}

interface Split {
  /** The items before the first assistant turn (system messages left out: they are in `system`). */
  head: unknown[];
  system: unknown[];
  /** What the first assistant turn wrote that no other history has; undefined when none yet. */
  firstTurn: unknown;
}

/**
 * The first assistant turn's mark: its tool call ids when it called tools (random per call), else
 * its text. Thinking and reasoning blocks are left out: clients may drop them from later requests.
 */
function turnMark(message: Obj): unknown {
  if (Array.isArray(message.tool_calls)) return (message.tool_calls as unknown[]).map((c) => (isObj(c) ? c.id : c));
  const content = message.content;
  if (!Array.isArray(content)) return content ?? null;
  const ids = content.filter((b) => isObj(b) && b.type === 'tool_use').map((b) => (b as Obj).id);
  if (ids.length > 0) return ids;
  return content.filter((b) => isObj(b) && (b.type === 'text' || b.type === 'output_text')).map((b) => (b as Obj).text);
}

function split(body: Obj): Split & { format: string } {
  const format = detectFormat(body);
  const isSystem = (m: unknown) => isObj(m) && (m.role === 'system' || m.role === 'developer');
  if (format === 'responses') {
    const items = Array.isArray(body.input) ? (body.input as unknown[]) : [body.input];
    const first = items.findIndex(isResponsesAssistant);
    const head = (first < 0 ? items : items.slice(0, first)).filter((i) => !isSystem(i) && !isReasoning(i));
    const turn = first < 0 ? undefined : (items[first] as Obj);
    const firstTurn =
      turn === undefined ? undefined : turn.role === 'assistant' ? turnMark(turn) : (turn.call_id ?? turn.id ?? null);
    return { format, head, system: [body.instructions ?? null, items.filter(isSystem)], firstTurn };
  }
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const first = messages.findIndex((m) => isObj(m) && m.role === 'assistant');
  const head = (first < 0 ? messages : messages.slice(0, first))
    .filter((m) => !isSystem(m))
    .map((m) => (isObj(m) ? withoutCacheControl(m.content) : m));
  const firstTurn = first < 0 ? undefined : turnMark(messages[first] as Obj);
  return { format, head, system: [body.system ?? null, messages.filter(isSystem)], firstTurn };
}

const isReasoning = (i: unknown) => isObj(i) && i.type === 'reasoning';

/**
 * A message's content without its `cache_control` marks: clients mark their last message, which
 * on a history's first request is the task itself and on the next ones no longer is.
 */
function withoutCacheControl(content: unknown): unknown {
  if (!Array.isArray(content) || !content.some((b) => isObj(b) && 'cache_control' in b)) return content;
  return content.map((b: unknown) => {
    if (!isObj(b) || !('cache_control' in b)) return b;
    const { cache_control: _mark, ...rest } = b;
    return rest;
  });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export interface ConversationIds {
  /** The history's id: its state is stored under it. Equals `head` until the first assistant turn. */
  history: string;
  /**
   * The id of the history's head (session key or else system prompt, and the task): the same for every request of
   * the history, first included; OpenAI's prompt_cache_key is named after it, and the second
   * request starts from the state the first stored under it.
   */
  head: string;
}

/**
 * Hex SHA-256 ids naming a request's history. With a session key the system prompt is left out
 * (the session key already tells agents apart, and Claude Code may change its system prompt
 * mid-session); without one it is part of the head, as the task alone is shared more often.
 */
export function conversationIds(body: Obj, sessionId?: string): ConversationIds {
  const { format, head, system, firstTurn } = split(body);
  const headParts: unknown[] =
    sessionId !== undefined ? ['session', sessionId, format, head] : ['head', format, system, head];
  // The head can be megabytes (a pasted file in the task): encoded once for both ids.
  const headJson = JSON.stringify(headParts);
  const headId = sha256(headJson);
  if (firstTurn === undefined) return { history: headId, head: headId };
  return { history: sha256(`${headJson}\u0000turn\u0000${JSON.stringify(firstTurn)}`), head: headId };
}

/** The id of the history's head (conversationIds().head): stable from the history's first request on. */
export function conversationId(body: Obj, sessionId?: string): string {
  return conversationIds(body, sessionId).head;
}
