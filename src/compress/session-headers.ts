// The session headers coding agents send, read into one key naming the history a request
// belongs to. A session id alone is not enough: Claude Code sends its session id with every
// subagent's requests too (the agent id tells them apart), and Codex names the thread and the
// context window (a new one after each compaction) beside its session. Every header of the list
// that is present takes part, so each history an agent keeps apart gets a key of its own.

/** Header names (as Node lowercases them), each agent's together; docs/compression.md lists who sends which. */
export const SESSION_HEADERS = [
  // the gateway's own, for any client
  'x-gateway-session-id',
  // Claude Code: the session, and the subagent whose history this is (absent for the main agent)
  'x-claude-code-session-id',
  'x-claude-code-agent-id',
  // Codex: session, thread (a subagent has its own), context window (`<thread>:<n>`, n grows at each compaction)
  'session-id',
  'session_id',
  'thread-id',
  'x-codex-window-id',
  // opencode
  'x-session-id',
  'x-session-affinity',
] as const;

/** A value longer than this is not an id: ignored rather than hashed into the key. */
const MAX_VALUE_LENGTH = 256;

type Headers = Record<string, string | string[] | undefined>;

/**
 * The request's session key: every session header present, by name, in the list's order;
 * undefined when the client sent none.
 */
export function sessionIdFrom(headers: Headers): string | undefined {
  let key: string | undefined;
  for (const name of SESSION_HEADERS) {
    const value = headers[name];
    const one = Array.isArray(value) ? value[0] : value;
    if (!one || one.length > MAX_VALUE_LENGTH) continue;
    key = `${key === undefined ? '' : `${key}\n`}${name}=${one}`;
  }
  return key;
}

/** The headers that name a whole session (not a subagent, thread or context window), most specific first. */
const SESSION_NAMING_HEADERS = [
  'x-gateway-session-id',
  'x-claude-code-session-id',
  'session-id',
  'session_id',
  'x-session-id',
] as const satisfies ReadonlyArray<(typeof SESSION_HEADERS)[number]>;

/**
 * The agent session a request belongs to, as the client named it: usage rows are grouped by it
 * (console sessions). Subagents and Codex's context windows stay in their parent session.
 */
export function clientSessionFrom(headers: Headers): string | undefined {
  for (const name of SESSION_NAMING_HEADERS) {
    const value = headers[name];
    const one = Array.isArray(value) ? value[0] : value;
    if (one && one.length <= MAX_VALUE_LENGTH) return one;
  }
  return undefined;
}
