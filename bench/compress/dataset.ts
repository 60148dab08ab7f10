// Builds compress requests from agent trajectories: every prefix of every conversation that
// ends right before a model call, in chat, messages and responses shape. Two layouts are read:
// SWE-agent `.traj` files (`loadConversations`), mini-swe-agent `.json` files
// (`loadMiniSweAgent`) and Claude Code stream-json `.jsonl` logs (claude-code-sessions.ts);
// `loadDataset` picks by the files it finds.
//
// 4 of the 22 trajectories are function-calling runs (tool_calls + tool messages) and are used
// as recorded. The other 18 are text-action runs: the command is in the assistant's text and
// its output comes back as a user message. A function-calling agent would have sent the same
// exchange as a `bash` tool call and a tool result, so that is what these are converted to
// (content = the assistant's thought, arguments = its action). Without that conversion their
// observations are user messages, which the engine never touches.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadClaudeCodeSessions } from './claude-code-sessions.js';

export type Shape = 'chat' | 'messages' | 'responses';
type Msg = Record<string, unknown>;

interface TrajMessage {
  role: string;
  content: string;
  thought?: string;
  action?: string;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_ids?: string[];
  is_demo?: boolean;
}

export interface Conversation {
  name: string;
  native: boolean;
  messages: Msg[];
  /** Chat-form tool definitions the agent sends with every request (else cost.ts's `--tools`). */
  tools?: Msg[];
  /** HTTP headers the agent sends with every request of this conversation (session, agent ids). */
  headers?: Record<string, string>;
}

export function loadConversations(dir: string): Conversation[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.traj'))
    .sort()
    .map((file) => {
      const history = (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { history: TrajMessage[] }).history;
      const native = history.some((m) => m.tool_calls?.length);
      const messages: Msg[] = [];
      let pendingCall: string | undefined;
      history.forEach((m, i) => {
        if (m.role === 'system') messages.push({ role: 'system', content: m.content });
        else if (m.role === 'assistant' && native) {
          messages.push(
            m.tool_calls?.length
              ? { role: 'assistant', content: m.content, tool_calls: m.tool_calls }
              : { role: 'assistant', content: m.content },
          );
        } else if (m.role === 'tool') {
          messages.push({ role: 'tool', tool_call_id: m.tool_call_ids?.[0] ?? '', content: m.content });
        } else if (m.role === 'assistant') {
          pendingCall = `call_${i}`;
          const args = JSON.stringify({ command: (m.action ?? '').trim() });
          messages.push({
            role: 'assistant',
            content: (m.thought ?? m.content).trim(),
            tool_calls: [{ id: pendingCall, type: 'function', function: { name: 'bash', arguments: args } }],
          });
        } else if (m.role === 'user' && pendingCall && !m.is_demo) {
          messages.push({ role: 'tool', tool_call_id: pendingCall, content: m.content });
          pendingCall = undefined;
        } else messages.push({ role: 'user', content: m.content });
      });
      return { name: file.replace(/\.traj$/, ''), native, messages };
    });
}

/** Every request the agent made: the messages before each assistant turn. */
export function prefixes(conv: Conversation): Msg[][] {
  const out: Msg[][] = [];
  conv.messages.forEach((m, i) => {
    if (m.role === 'assistant' && i > 0) out.push(conv.messages.slice(0, i));
  });
  return out;
}

export function toShape(messages: Msg[], shape: Shape): Record<string, unknown> {
  if (shape === 'chat') return { model: 'openai/gpt-4o', messages };
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content as string)
    .join('\n');
  const rest = messages.filter((m) => m.role !== 'system');
  if (shape === 'responses') {
    const input: Msg[] = [];
    for (const m of rest) {
      if (m.role === 'tool') input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content });
      else if (m.role === 'assistant') {
        if (m.content) input.push({ role: 'assistant', content: m.content });
        for (const c of (m.tool_calls as { id: string; function: { name: string; arguments: string } }[] | undefined) ??
          []) {
          input.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments });
        }
      } else input.push({ role: 'user', content: m.content });
    }
    return { model: 'openai/gpt-4o', instructions: system, input };
  }
  const out: Msg[] = [];
  for (const m of rest) {
    if (m.role === 'tool') {
      const block = { type: 'tool_result', tool_use_id: m.tool_call_id, content: m.content };
      const last = out[out.length - 1];
      // Parallel results share one user message, as the Messages API requires.
      if (last?.role === 'user' && Array.isArray(last.content) && (last.content as Msg[])[0]?.type === 'tool_result')
        (last.content as Msg[]).push(block);
      else out.push({ role: 'user', content: [block] });
    } else if (m.role === 'assistant') {
      const blocks: Msg[] = m.content ? [{ type: 'text', text: m.content }] : [];
      for (const c of (m.tool_calls as { id: string; function: { name: string; arguments: string } }[] | undefined) ??
        []) {
        let input: unknown = {};
        try {
          input = JSON.parse(c.function.arguments);
        } catch {
          input = { raw: c.function.arguments };
        }
        blocks.push({ type: 'tool_use', id: c.id, name: c.function.name, input });
      }
      out.push({ role: 'assistant', content: blocks });
    } else out.push({ role: 'user', content: m.content });
  }
  return { model: 'claude-sonnet-4-5', max_tokens: 4096, system, messages: out };
}

/**
 * mini-swe-agent runs (`{ messages: [{role, content}] }`): each assistant message holds a
 * THOUGHT and one fenced bash block, the next user message is the command's result. As for the
 * SWE-agent text-action runs, a function-calling agent would send the block as a `bash` tool
 * call and the result as its tool message, so that is what they become. An assistant message
 * with no or several bash blocks (a format error the agent is told about) stays plain text, and
 * so does the user message after it.
 */
export function loadMiniSweAgent(dir: string): Conversation[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = (
        JSON.parse(readFileSync(join(dir, file), 'utf8')) as { messages: { role: string; content: unknown }[] }
      ).messages;
      const messages: Msg[] = [];
      let pendingCall: string | undefined;
      raw.forEach((m, i) => {
        const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
        if (m.role === 'assistant') {
          const blocks = [...content.matchAll(BASH_BLOCK)];
          if (blocks.length !== 1) {
            messages.push({ role: 'assistant', content });
            pendingCall = undefined;
            return;
          }
          pendingCall = `call_${i}`;
          const thought = content.replace(BASH_BLOCK, '').trim();
          messages.push({
            role: 'assistant',
            content: thought,
            tool_calls: [
              {
                id: pendingCall,
                type: 'function',
                function: { name: 'bash', arguments: JSON.stringify({ command: blocks[0]![1]!.trim() }) },
              },
            ],
          });
        } else if (m.role === 'user' && pendingCall) {
          messages.push({ role: 'tool', tool_call_id: pendingCall, content });
          pendingCall = undefined;
        } else messages.push({ role: m.role, content });
      });
      return { name: basename(file, '.json'), native: false, messages };
    });
}

const BASH_BLOCK = /```bash[ \t]*\n([\s\S]*?)\n```/g;

/** SWE-agent `.traj`, Claude Code `.jsonl` or mini-swe-agent `.json` files, whichever the directory holds. */
export function loadDataset(dir: string): Conversation[] {
  const files = readdirSync(dir);
  if (files.some((f) => f.endsWith('.traj'))) return loadConversations(dir);
  if (files.some((f) => f.endsWith('.jsonl'))) return loadClaudeCodeSessions(dir);
  return loadMiniSweAgent(dir);
}
