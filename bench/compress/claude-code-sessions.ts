// Claude Code sessions (`claude -p --output-format stream-json` logs, one event a line; the
// format is in ../shared/datasets/claude-code-sessions/README.md) as the requests Claude Code
// sent: one conversation per thread (the main one, and each subagent a `Task` call started),
// one request per assistant turn.
//
// The logs hold neither Claude Code's system prompt nor its tool definitions: every thread gets
// the same stand-in of realistic size (fixtures/claude-code-system.md and
// fixtures/claude-code-tools.json, about 12k tokens together), the same with and without
// compression. Each request carries the headers Claude Code sends (its session id, and a
// subagent's agent id) so that conversation state can be told apart by them.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Conversation } from './dataset.js';

type Msg = Record<string, unknown>;

interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

interface StreamEvent {
  type: string;
  text?: string | null;
  session_id?: string;
  parent_tool_use_id?: string | null;
  message?: { id?: string; role?: string; content?: string | Block[] };
}

const here = dirname(fileURLToPath(import.meta.url));
export const CLAUDE_CODE_SYSTEM = readFileSync(join(here, 'fixtures/claude-code-system.md'), 'utf8');
export const CLAUDE_CODE_TOOLS = JSON.parse(
  readFileSync(join(here, 'fixtures/claude-code-tools.json'), 'utf8'),
) as Msg[];

/** What Claude Code sends in headers; a subagent's requests add its agent id. */
export const SESSION_HEADER = 'x-claude-code-session-id';
export const AGENT_HEADER = 'x-claude-code-agent-id';

/** A tool result's text; images (3 in the dataset) stand as a short note, as no shape here carries them. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Block[]).map((b) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n');
}

interface Thread {
  /** The `Task` call that started it; undefined for the main thread. */
  parent: string | undefined;
  messages: Msg[];
  /**
   * The latest assistant message and its API message id: stream-json sends one block per event,
   * and the results of parallel calls may arrive between blocks of the same message.
   */
  assistant: Msg | undefined;
  assistantId: string | undefined;
}

function appendAssistant(thread: Thread, id: string | undefined, blocks: Block[]): void {
  let target = thread.assistant;
  if (!(target && id !== undefined && thread.assistantId === id)) {
    target = { role: 'assistant', content: '' };
    thread.messages.push(target);
    thread.assistant = target;
    thread.assistantId = id;
  }
  for (const b of blocks) {
    if (b.type === 'text' && b.text)
      target!.content = target!.content ? `${target!.content as string}\n\n${b.text}` : b.text;
    else if (b.type === 'tool_use') {
      const calls = (target!.tool_calls ??= []) as Msg[];
      calls.push({
        id: b.id,
        type: 'function',
        function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
      });
    }
  }
}

/** Calls left without a result (the log ended, or the result was never printed) are dropped. */
function withoutUnansweredCalls(messages: Msg[]): Msg[] {
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id as string));
  const out: Msg[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.tool_calls) {
      out.push(m);
      continue;
    }
    const calls = (m.tool_calls as Msg[]).filter((c) => answered.has(c.id as string));
    const { tool_calls: _dropped, ...rest } = m;
    if (calls.length) out.push({ ...rest, tool_calls: calls });
    else if (m.content) out.push(rest);
  }
  return out;
}

export function loadClaudeCodeSession(file: string, name: string): Conversation[] {
  const events = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as StreamEvent);
  const prompt = events.find((e) => e.type === 'prompt')?.text ?? 'Continue with the task.';
  const sessionId = events.find((e) => e.session_id)?.session_id ?? name;
  const taskPrompts = new Map<string, string>();
  const threads = new Map<string, Thread>();
  const threadOf = (parent: string | undefined): Thread => {
    const key = parent ?? '';
    let thread = threads.get(key);
    if (!thread) {
      const first = parent === undefined ? prompt : (taskPrompts.get(parent) ?? 'Continue with the task.');
      thread = {
        parent,
        messages: [
          { role: 'system', content: CLAUDE_CODE_SYSTEM },
          { role: 'user', content: first },
        ],
        assistant: undefined,
        assistantId: undefined,
      };
      threads.set(key, thread);
    }
    return thread;
  };
  threadOf(undefined);
  for (const e of events) {
    if (e.type !== 'assistant' && e.type !== 'user') continue;
    const thread = threadOf(e.parent_tool_use_id ?? undefined);
    const content = e.message?.content;
    if (e.type === 'assistant') {
      const blocks = Array.isArray(content) ? content : [{ type: 'text', text: content ?? '' }];
      for (const b of blocks) {
        if (b.type === 'tool_use' && b.name === 'Task' && b.id) {
          const input = (b.input ?? {}) as { prompt?: unknown };
          if (typeof input.prompt === 'string') taskPrompts.set(b.id, input.prompt);
        }
      }
      appendAssistant(thread, e.message?.id, blocks);
      continue;
    }
    if (typeof content === 'string') {
      thread.messages.push({ role: 'user', content });
      continue;
    }
    for (const b of content ?? []) {
      if (b.type === 'tool_result')
        thread.messages.push({ role: 'tool', tool_call_id: b.tool_use_id, content: resultText(b.content) });
      else if (b.type === 'text') thread.messages.push({ role: 'user', content: b.text ?? '' });
    }
  }
  return [...threads.values()].map((thread) => ({
    name: thread.parent === undefined ? name : `${name}/agent-${thread.parent}`,
    native: true,
    messages: withoutUnansweredCalls(thread.messages),
    tools: CLAUDE_CODE_TOOLS,
    headers: {
      [SESSION_HEADER]: sessionId,
      ...(thread.parent === undefined ? {} : { [AGENT_HEADER]: `agent-${thread.parent}` }),
    },
  }));
}

/** Every session of the directory, each main thread followed by its subagents' threads. */
export function loadClaudeCodeSessions(dir: string): Conversation[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((file) => loadClaudeCodeSession(join(dir, file), file.replace(/\.jsonl$/, '')));
}
