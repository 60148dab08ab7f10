// A request body as the prompt-cache simulator sees it: one block per content block, in prompt
// order (tools, system, messages), each with its token count and whether a `cache_control`
// breakpoint ends there. Counted with o200k_base: the costs compared are ratios between
// variants of the same conversation, so one tokenizer for every provider is enough.
import { chainKeys, type PromptBlock } from '../../src/catalogue/prompt-cache-simulator.js';
import { countTextTokens } from '../../src/tokenize/index.js';

type Obj = Record<string, unknown>;

// Per block framing (role and block markers), as the providers' counts add it.
const FRAMING = 3;

interface Part {
  content: string;
  tokens: number;
  breakpoint: boolean;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value))
    return value.map((p) => (p && typeof p === 'object' ? textOf((p as Obj).text) : '')).join('\n');
  return value === undefined ? '' : JSON.stringify(value);
}

function part(kind: string, text: string, cache: unknown): Part {
  return {
    content: `${kind}\u0001${text}`,
    tokens: countTextTokens(text, 'o200k_base') + FRAMING,
    breakpoint: !!cache,
  };
}

function blocksOf(parts: Part[]): PromptBlock[] {
  const keys = chainKeys(parts.map((p) => p.content));
  return parts.map((p, i) => ({ key: keys[i]!, tokens: p.tokens, breakpoint: p.breakpoint }));
}

/** An Anthropic Messages body (tools, system, messages with content blocks). */
export function messagesBlocks(body: Obj): PromptBlock[] {
  const parts: Part[] = [];
  for (const tool of (body.tools as Obj[] | undefined) ?? []) {
    const { cache_control, ...rest } = tool;
    parts.push(part('tool', JSON.stringify(rest), cache_control));
  }
  if (typeof body.system === 'string') parts.push(part('system', body.system, undefined));
  else if (Array.isArray(body.system))
    for (const b of body.system as Obj[]) parts.push(part('system', textOf(b.text), b.cache_control));
  for (const m of (body.messages as Obj[] | undefined) ?? []) {
    const role = String(m.role);
    // A string content is one text block to the provider: the client's breakpoint turns the
    // last message into a block array, and the next request sends it as a string again.
    if (typeof m.content === 'string') {
      parts.push(part(`${role}:text`, m.content, undefined));
      continue;
    }
    for (const b of (m.content as Obj[] | undefined) ?? []) {
      if (b.type === 'tool_use')
        parts.push(part(`${role}:tool_use`, `${b.id} ${b.name} ${JSON.stringify(b.input)}`, b.cache_control));
      else if (b.type === 'tool_result')
        parts.push(part(`${role}:tool_result`, `${b.tool_use_id} ${textOf(b.content)}`, b.cache_control));
      else parts.push(part(`${role}:${String(b.type)}`, textOf(b.text ?? b), b.cache_control));
    }
  }
  return blocksOf(parts);
}

/** A chat completions body: one block per message (automatic caching needs no breakpoints). */
export function chatBlocks(body: Obj): PromptBlock[] {
  const parts: Part[] = [];
  for (const tool of (body.tools as Obj[] | undefined) ?? []) parts.push(part('tool', JSON.stringify(tool), undefined));
  for (const m of (body.messages as Obj[] | undefined) ?? []) {
    const calls = m.tool_calls ? JSON.stringify(m.tool_calls) : '';
    const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : '';
    parts.push(part(`${String(m.role)}${id}`, `${textOf(m.content)}${calls}`, m.cache_control));
  }
  return blocksOf(parts);
}
