import type { FastifyRequest } from 'fastify';
import type { NativeEvent } from '../../providers/index.js';
import type { GatewayError, NativeOffer, StreamEncoder } from '../../pipeline/index.js';
import { sseNamedEvent } from '../../pipeline/sse-writer.js';
import { refersToStoredFile, type StoredContext } from '../../pipeline/unseen-prompt.js';
import type { MessagesRequest } from './messages-schema.js';
import { toAnthropicError } from './anthropic-errors.js';

/**
 * The Messages codec's native pass-through (docs/agent-endpoints.md, "Native pass-through"): the
 * client's own Messages body is offered to admission, which sends it upstream (model replaced,
 * gateway members removed, compressed in Messages form when compression applies) when the
 * model's first target accepts Anthropic Messages natively; the answer comes back as it was,
 * `model` echoing the client. Which providers accept the format is their adapters' to say
 * (src/providers/registry.ts); admission, routing (native retries and fallback, then the
 * translated path for the rest of the targets) and metering are the call core's. This module
 * makes the offer and rewrites the few members the client must see differently.
 *
 * Translation stays in charge when gateway tools are injected or a `gateway_pending_id` is sent
 * (the tool loop works on the canonical chat shape), and when the first target does not accept Messages.
 */

/**
 * The native offer of a Messages request. `nativeOnly`: what only the upstream runs (server
 * tools, …), refused on the translated path and never translated after a native failure.
 */
export function messagesOffer(
  request: FastifyRequest,
  client: MessagesRequest,
  nativeOnly: GatewayError | undefined,
): NativeOffer {
  const source = client as unknown as Record<string, unknown>;
  return {
    format: 'anthropic-messages',
    // The compression engine reads a body as Messages-style when it has `system` (rule 1 of its
    // format detection): a body without one gets an empty placeholder, which JSON leaves out.
    body: 'system' in source ? source : { ...source, system: undefined },
    untranslatable: nativeOnly,
    counted: MESSAGES_COUNTED,
    storedContext: messagesStoredContext,
    outputCapMember: 'max_tokens',
    wireHeaders: clientHeaders(request),
    debugMember: 'messages_path',
  };
}

/** Members of a Messages body the canonical estimate counts: the conversion's messages, system and tools. */
const MESSAGES_COUNTED: ReadonlySet<string> = new Set(['messages', 'system', 'tools']);

/** Anthropic's server tools: what they fetch or run is added to the prompt by Anthropic, unseen by the gateway. */
const SERVER_TOOL_PREFIXES = ['web_search_', 'web_fetch_', 'code_execution_', 'mcp_toolset'];
const isServerTool = (type: unknown): boolean =>
  typeof type === 'string' && SERVER_TOOL_PREFIXES.some((prefix) => type.startsWith(prefix));

/**
 * What a native Messages body makes Anthropic bill beyond what it carries (docs/budgets.md,
 * "Stored context"), all refused on keys with a ceiling: a container (its skills and files),
 * MCP servers (their tools and results), server tools (their results), files sent by `file_id`.
 */
export function messagesStoredContext(body: Record<string, unknown>): StoredContext[] {
  const contexts: StoredContext[] = [];
  if (body.container !== undefined && body.container !== null)
    contexts.push({ kind: 'unknown', member: 'container', what: 'A container' });
  if (Array.isArray(body.mcp_servers) && body.mcp_servers.length > 0)
    contexts.push({ kind: 'unknown', member: 'mcp_servers', what: 'An MCP server' });
  if (Array.isArray(body.tools)) {
    const server = (body.tools as unknown[]).find((tool) => isServerTool((tool as { type?: unknown } | null)?.type));
    if (server)
      contexts.push({
        kind: 'unknown',
        member: 'tools',
        what: `The server tool ${String((server as { type: unknown }).type)}`,
      });
  }
  if (
    refersToStoredFile(body.system) ||
    (Array.isArray(body.messages) && body.messages.some((m) => refersToStoredFile(m)))
  )
    contexts.push({ kind: 'unknown', member: 'messages', what: 'A file sent by file_id' });
  return contexts;
}

/** `anthropic-version` and `anthropic-beta` as the client sent them (repeated headers joined). */
function clientHeaders(request: FastifyRequest): Record<string, string | undefined> {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);
  return {
    'anthropic-version': one(request.headers['anthropic-version']),
    'anthropic-beta': one(request.headers['anthropic-beta']),
  };
}

/** Anthropic's answer as it came, `model` echoing the client, with the gateway members. */
export function nativeMessageBody(
  answer: Record<string, unknown>,
  client: MessagesRequest,
  extras: Record<string, unknown>,
): Record<string, unknown> {
  return { ...answer, model: client.model, ...extras };
}

/**
 * Anthropic's events as they come (`message_start` with the client's model, gateway members on
 * `message_delta`, as on the translated path). `message_stop` is held until the usage row is
 * committed; a failure after the first byte is Anthropic's `error` event.
 */
export function nativeMessagesEncoder(
  requestId: string,
  client: MessagesRequest,
  session: { extras(): Record<string, unknown> },
): StreamEncoder<NativeEvent> {
  let stop: Record<string, unknown> | undefined;
  return {
    // The first event may take a while: the client sees the answer start as soon as the upstream's did.
    flushHeaders: true,
    start: () => '',
    push({ event, data }) {
      if (event === 'message_stop') {
        stop = data;
        return '';
      }
      let out = data;
      if (event === 'message_start' && data.message && typeof data.message === 'object') {
        out = { ...data, message: { ...(data.message as Record<string, unknown>), model: client.model } };
      } else if (event === 'message_delta') {
        out = { ...data, ...session.extras() };
      }
      return sseNamedEvent(event, out);
    },
    finish: () => sseNamedEvent('message_stop', stop ?? { type: 'message_stop' }),
    fail: (error) => sseNamedEvent('error', toAnthropicError(error, requestId)),
  };
}
