// Cache breakpoints the gateway places for Anthropic upstreams. Anthropic caches nothing
// without `cache_control`, and most chat-completions clients send none, so every request of
// theirs pays the full input price. With breakpoints at the end of the system prompt (tools
// come before it) and at the last message, each request re-reads the previous one's prompt at
// a tenth of the price. A third breakpoint sits at the history-rewrite boundary (the assistant
// message of the boundary turn, see pipeline.ts `boundaryAnchorItem`): every request refreshes
// it, so the next rewrite re-reads everything before the boundary instead of writing the whole
// conversation again (Anthropic looks back only 20 blocks from a breakpoint).
//
// Never more than 4 in all, and never one of the client's removed: when the client placed its
// own, only the boundary is added (if there is room), since the client chose the rest.
import { detectFormat } from './formats/index.js';

type Obj = Record<string, unknown>;

const EPHEMERAL = { type: 'ephemeral' } as const;
export const MAX_BREAKPOINTS = 4;

export interface PlacedBreakpoints {
  body: Obj;
  /** Breakpoints the client's body carried, and those the gateway added. */
  client: number;
  added: number;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const marked = (v: unknown) => isObj(v) && v.cache_control !== undefined && v.cache_control !== null;

function countIn(list: unknown): number {
  if (!Array.isArray(list)) return 0;
  let n = 0;
  for (const item of list) {
    if (marked(item)) n++;
    if (isObj(item) && Array.isArray(item.content)) n += countIn(item.content);
  }
  return n;
}

/** Breakpoints a chat or Messages body already carries (tools, system blocks, messages and their parts). */
export function countBreakpoints(body: Obj): number {
  return countIn(body.tools) + countIn(body.system) + countIn(body.messages);
}

// Blocks Anthropic refuses a cache_control on: thinking blocks, and empty text.
function cacheable(block: unknown): boolean {
  if (!isObj(block)) return false;
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  return !(block.type === 'text' && block.text === '');
}

/** A Messages message with a breakpoint on its last block that can carry one; undefined when none can. */
function markMessagesMessage(message: Obj): Obj | undefined {
  if (typeof message.content === 'string') {
    if (message.content === '') return undefined;
    return { ...message, content: [{ type: 'text', text: message.content, cache_control: EPHEMERAL }] };
  }
  if (!Array.isArray(message.content)) return undefined;
  const blocks = message.content as unknown[];
  for (let i = blocks.length - 1; i >= 0; i--) {
    if (!cacheable(blocks[i])) continue;
    if (marked(blocks[i])) return message;
    const next = blocks.slice();
    next[i] = { ...(blocks[i] as Obj), cache_control: EPHEMERAL };
    return { ...message, content: next };
  }
  return undefined;
}

/** A chat message marked at its end (the Anthropic codec puts it on the message's last block). */
function markChatMessage(message: Obj): Obj | undefined {
  if (marked(message)) return message;
  const content = message.content;
  const empty = content === null || content === undefined || content === '';
  if (empty && !(Array.isArray(message.tool_calls) && message.tool_calls.length > 0)) return undefined;
  return { ...message, cache_control: EPHEMERAL };
}

/**
 * The body with the gateway's breakpoints added (a chat body or an Anthropic Messages body);
 * `anchorItem` is the message index of the rewrite boundary (-1: none). `readAnchorItem`, in the
 * request that moves the boundary, is where the previous boundary's breakpoint was: the cache
 * entry this request can still read. Anthropic looks for it only up to 20 blocks before one of
 * the request's breakpoints, so without a breakpoint of its own there the rewrite would read no
 * more than the system prompt and write the whole conversation again.
 */
export function placeBreakpoints(body: Obj, anchorItem: number, readAnchorItem = -1): PlacedBreakpoints {
  const client = countBreakpoints(body);
  const messages = Array.isArray(body.messages) ? (body.messages as Obj[]) : [];
  const messagesShape =
    detectFormat(body) === 'messages' ||
    messages.some(
      (m) =>
        Array.isArray(m.content) &&
        m.content.some((b) => isObj(b) && (b.type === 'tool_use' || b.type === 'tool_result')),
    );
  const mark = messagesShape ? markMessagesMessage : markChatMessage;
  const nextMessages = messages.slice();
  let added = 0;
  const room = () => client + added < MAX_BREAKPOINTS;
  const markAt = (i: number) => {
    if (i < 0 || i >= nextMessages.length || !room() || marked(nextMessages[i]) || countIn([nextMessages[i]]) > 0)
      return;
    const m = mark(nextMessages[i]!);
    if (m && m !== nextMessages[i]) {
      nextMessages[i] = m;
      added++;
    }
  };
  const out: Obj = { ...body };
  if (client === 0) {
    // End of tools + system: the system prompt's last block (Messages), or the last system
    // message at the head of a chat body.
    if (messagesShape) {
      if (typeof body.system === 'string' && body.system !== '') {
        out.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
        added++;
      } else if (Array.isArray(body.system) && body.system.length > 0) {
        const system = (body.system as unknown[]).slice();
        const last = system.length - 1;
        if (cacheable(system[last])) {
          system[last] = { ...(system[last] as Obj), cache_control: EPHEMERAL };
          out.system = system;
          added++;
        }
      }
    } else {
      let head = -1;
      while (head + 1 < nextMessages.length && ['system', 'developer'].includes(String(nextMessages[head + 1]!.role)))
        head++;
      markAt(head);
    }
    markAt(nextMessages.length - 1);
  }
  if (readAnchorItem < anchorItem) markAt(readAnchorItem);
  if (anchorItem < nextMessages.length - 1) markAt(anchorItem);
  if (added === 0) return { body, client, added };
  out.messages = nextMessages;
  return { body: out, client, added };
}
