import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export { TRAJECTORY_DIR } from '../../test/fixtures/trajectories.js';
import { TRAJECTORY_DIR } from '../../test/fixtures/trajectories.js';

export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

export interface ChatRequestFixture {
  model: string;
  messages: ChatMessage[];
}

interface TrajectoryFile {
  history: Record<string, unknown>[];
  trajectory?: { messages?: Record<string, unknown>[] }[];
}

/** Keeps only chat-completions fields; SWE-agent's bookkeeping (agent, thought, …) is dropped. */
export function toChatMessage(raw: Record<string, unknown>): ChatMessage {
  const message: ChatMessage = {
    role: String(raw.role),
    content: typeof raw.content === 'string' ? raw.content : null,
  };
  if (Array.isArray(raw.tool_calls) && raw.tool_calls.length > 0) message.tool_calls = raw.tool_calls;
  if (Array.isArray(raw.tool_call_ids) && typeof raw.tool_call_ids[0] === 'string') {
    message.tool_call_id = raw.tool_call_ids[0];
  }
  return message;
}

/**
 * Every request an agent sends over a trajectory: the exact per-call lists when the file has
 * them (`trajectory[i].messages`), otherwise every prefix of `history`. Each request is its
 * own deep copy, as if freshly parsed from the wire: no string object is shared between
 * requests, so a cache cannot win on object identity alone.
 */
export function loadAgentRequests(model: string): { files: number; requests: ChatRequestFixture[] } {
  const names = readdirSync(TRAJECTORY_DIR)
    .filter((name) => name.endsWith('.traj'))
    .sort();
  const requests: ChatRequestFixture[] = [];
  for (const name of names) {
    const file = JSON.parse(readFileSync(join(TRAJECTORY_DIR, name), 'utf8')) as TrajectoryFile;
    const calls = file.trajectory ?? [];
    const exact = calls.length > 0 && calls.every((step) => Array.isArray(step.messages));
    const lists = exact
      ? calls.map((step) => step.messages ?? [])
      : file.history.map((_, i) => file.history.slice(0, i + 1));
    for (const list of lists) {
      const request: ChatRequestFixture = { model, messages: list.map(toChatMessage) };
      requests.push(JSON.parse(JSON.stringify(request)) as ChatRequestFixture);
    }
  }
  return { files: names.length, requests };
}
