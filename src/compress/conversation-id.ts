// Which conversation a request belongs to. Agents resend the whole history every turn, so a
// conversation is recognised by what never changes in it: its system prompt and its first user
// message (the task), hashed; or by the session id the client sends, when it sends one. Always
// scoped to the API key by the caller.
import { createHash } from 'node:crypto';
import { detectFormat } from './formats/index.js';

type Obj = Record<string, unknown>;

/** Headers clients send a session id in: ours, Codex's, Claude Code's. */
export const SESSION_HEADERS = ['x-gateway-session-id', 'session-id', 'x-claude-code-session-id'] as const;

export function sessionIdFrom(headers: Record<string, string | string[] | undefined>): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = headers[name];
    const one = Array.isArray(value) ? value[0] : value;
    if (one && one.length <= 256) return one;
  }
  return undefined;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parts of a body that stay the same for the whole conversation. */
function stableHead(body: Obj): unknown[] {
  const format = detectFormat(body);
  if (format === 'responses') {
    const items = Array.isArray(body.input) ? (body.input as unknown[]) : [body.input];
    const firstUser = items.find((i) => typeof i === 'string' || (isObj(i) && i.role === 'user'));
    const system = items.filter((i) => isObj(i) && (i.role === 'system' || i.role === 'developer'));
    return ['responses', body.instructions ?? null, system, firstUser ?? null];
  }
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const system = messages.filter((m) => isObj(m) && (m.role === 'system' || m.role === 'developer'));
  const firstUser = messages.find((m) => isObj(m) && m.role === 'user');
  return [format, body.system ?? null, system, isObj(firstUser) ? firstUser.content : null];
}

/** A hex SHA-256 naming the conversation (session id when given, else its stable head). */
export function conversationId(body: Obj, sessionId?: string): string {
  const hash = createHash('sha256');
  if (sessionId !== undefined) hash.update('session\u0000').update(sessionId);
  else hash.update('head\u0000').update(JSON.stringify(stableHead(body)));
  return hash.digest('hex');
}
