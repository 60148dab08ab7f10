import type { FastifyRequest } from 'fastify';
import {
  nativeMessagesComplete,
  nativeMessagesStream,
  type NativeHeaders,
  type NativeStreamEvent,
  type UpstreamTarget,
} from '../../providers/index.js';
import type { CatalogueModel } from '../../catalogue/catalogue.js';
import type { ConversationStore } from '../../compress/conversation-request.js';
import type { ChatRequest } from '../../canonical/chat-request.js';
import type { AdmitOptions, Call, NativeJson, NativeRoute, StreamEncoder } from '../../pipeline/index.js';
import type { GatewayToolPlan } from '../../pipeline/gateway-tool-plan.js';
import { applyCompression, type AppliedCompression } from '../../pipeline/apply-compression.js';
import { sseNamedEvent } from '../../pipeline/sse-writer.js';
import { refersToStoredFile, type StoredContext } from '../../pipeline/unseen-prompt.js';
import type { MessagesRequest } from './messages-schema.js';
import { toAnthropicError } from './anthropic-errors.js';

/**
 * The Messages codec's native route (docs/agent-endpoints.md, "Native pass-through"): when the
 * model's first upstream target is an Anthropic one, the client's own Messages body goes
 * upstream (model replaced, gateway members removed, compressed in Messages form when
 * compression applies) and Anthropic's answer comes back as it was, `model` echoing the client.
 * Admission, routing (native retries and fallback, then the translated path for the rest of the
 * targets) and metering are the call core's (src/pipeline/native.ts); this module prepares the
 * body, names the upstream calls and rewrites the few members the client must see differently.
 *
 * Translation stays in charge when gateway tools are injected or a `gateway_pending_id` is sent
 * (the tool loop works on the canonical chat shape), and when the first target is not Anthropic.
 */

export interface PreparedNative {
  /** The client's Messages body, compressed when compression applies; gateway members still in (the provider layer removes them). */
  body: Record<string, unknown>;
  compression: AppliedCompression | undefined;
}

/** Whether a request goes native: no gateway tools, no pending id, and an Anthropic first target. */
export function nativeEligible(context: {
  body: ChatRequest;
  plan: GatewayToolPlan | undefined;
  targets: UpstreamTarget[];
}): boolean {
  return (
    (context.plan?.tools.size ?? 0) === 0 &&
    context.body.gateway_pending_id === undefined &&
    context.targets[0]?.kind === 'anthropic'
  );
}

/**
 * Admission options for a Messages request: when it goes native, compression runs on the
 * client's Messages body (inside admission, so a compression error is still a plain 400 before
 * any budget is reserved) instead of on the canonical body. `prepared()` says which path won.
 */
export function nativeAdmission(
  request: FastifyRequest,
  client: MessagesRequest,
): { options: AdmitOptions; prepared(): PreparedNative | undefined } {
  let prepared: PreparedNative | undefined;
  return {
    options: {
      compressCanonical: async (context) => {
        if (!nativeEligible(context)) return true;
        prepared = await compressMessagesBody(request, client, context.model, context.conversations);
        return false;
      },
      forwarded: () =>
        prepared && {
          body: prepared.body,
          counted: MESSAGES_COUNTED,
          storedContext: messagesStoredContext(prepared.body),
        },
    },
    prepared: () => prepared,
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

/**
 * Compression in Messages form: the compression engine reads a body as Messages-style when it has
 * `system` (rule 1 of its format detection), so a body without one gets an empty placeholder
 * for the reading, removed again from what is sent.
 */
async function compressMessagesBody(
  request: FastifyRequest,
  client: MessagesRequest,
  model: CatalogueModel,
  conversations: ConversationStore | undefined,
): Promise<PreparedNative> {
  const source = client as unknown as Record<string, unknown>;
  const hadSystem = 'system' in source;
  const probe = hadSystem ? source : { ...source, system: undefined };
  const { body, compression } = await applyCompression(request, probe as unknown as ChatRequest, model, conversations);
  // The body is sent even when compression saved nothing: it may carry the gateway's cache
  // breakpoints, and first-sight changes stay stable from one turn to the next.
  const out = { ...(body as unknown as Record<string, unknown>) };
  if (!hadSystem && out.system === undefined) delete out.system;
  return { body: out, compression };
}

/** `anthropic-version` and `anthropic-beta` as the client sent them (repeated headers joined). */
function clientHeaders(request: FastifyRequest): NativeHeaders {
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(',') : value);
  return {
    anthropicVersion: one(request.headers['anthropic-version']),
    anthropicBeta: one(request.headers['anthropic-beta']),
  };
}

/** The core's native route for an admitted Messages request that `nativeAdmission` prepared. */
export function anthropicNativeRoute(
  call: Call,
  prepared: PreparedNative,
): NativeRoute<Record<string, unknown>, NativeStreamEvent> {
  call.admission.compression = prepared.compression;
  const headers = clientHeaders(call.request);
  // A key with a ceiling: the client's max_tokens, lowered to what its reservation pays for.
  const cap = call.admission.outputCapApplied;
  const body = cap === undefined ? prepared.body : { ...prepared.body, max_tokens: cap };
  return {
    speaks: (target) => target.kind === 'anthropic',
    translatable: true,
    debugMember: 'messages_path',
    complete: (target: UpstreamTarget, options) => nativeMessagesComplete(body, target, { ...options, ...headers }),
    stream: (target: UpstreamTarget, options) => nativeMessagesStream(body, target, { ...options, ...headers }),
  };
}

/** Anthropic's answer as it came, `model` echoing the client, with the gateway members. */
export function nativeMessageBody(answer: NativeJson<Record<string, unknown>>, client: MessagesRequest) {
  return { ...answer.body, model: client.model, ...answer.extras };
}

/**
 * Anthropic's events as they come (`message_start` with the client's model, gateway members on
 * `message_delta`, as on the translated path). `message_stop` is held until the usage row is
 * committed; a failure after the first byte is Anthropic's `error` event.
 */
export function nativeMessagesEncoder(
  call: Call,
  client: MessagesRequest,
  extras: () => Record<string, unknown>,
): StreamEncoder<NativeStreamEvent> {
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
        out = { ...data, ...extras() };
      }
      return sseNamedEvent(event, out);
    },
    finish: () => sseNamedEvent('message_stop', stop ?? { type: 'message_stop' }),
    fail: (error) => sseNamedEvent('error', toAnthropicError(error, call.request.id)),
  };
}
