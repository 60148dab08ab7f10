import type { FastifyRequest } from 'fastify';
import {
  nativeResponsesComplete,
  nativeResponsesStream,
  type NativeResponsesEvent,
  type UpstreamTarget,
} from '../../providers/index.js';
import type { ChatRequest } from '../../canonical/chat-request.js';
import type { AdmitOptions, Call, NativeJson, NativeRoute, StreamEncoder } from '../../pipeline/index.js';
import { GatewayError } from '../../pipeline/errors.js';
import { applyCompression, type AppliedCompression } from '../../pipeline/apply-compression.js';
import { sseNamedEvent } from '../../pipeline/sse-writer.js';
import { refersToStoredFile, type StoredContext } from '../../pipeline/unseen-prompt.js';
import type { ResponsesRequest } from './responses-schema.js';
import { responsesToChat } from './convert-request.js';

/**
 * The Responses codec's native route (docs/agent-endpoints.md, "Native pass-through to OpenAI"):
 * when the model's first upstream target serves OpenAI's Responses API (an `openai` provider
 * with `responses_api`), the client's own Responses body goes upstream (model replaced, gateway
 * members removed, compressed in Responses form when compression applies) and OpenAI's answer
 * comes back as it was, `model` echoing the client. Every input item and tool type passes,
 * including those the translation cannot carry (`additional_tools`, namespace, custom and hosted
 * tools, `previous_response_id`); such a request has no translated fallback.
 *
 * Translation stays in charge when gateway tools are injected or a `gateway_pending_id` is sent,
 * and when the first target does not serve the Responses API.
 */

const speaksResponses = (target: UpstreamTarget): boolean => target.kind === 'openai' && target.responsesApi === true;

/**
 * The canonical request admission works on. A body the translation refuses still gets a
 * stand-in (its text for the prompt estimate, its gateway members): it can only be served
 * natively, and `nativeResponsesAdmission` refuses it with the translation's error otherwise.
 */
export function admissionRequest(
  body: ResponsesRequest,
  modelId: string,
): { chat: ChatRequest; untranslatable: GatewayError | undefined } {
  try {
    return { chat: responsesToChat(body, modelId), untranslatable: undefined };
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { chat: standIn(body, modelId), untranslatable: error };
  }
}

function standIn(body: ResponsesRequest, modelId: string): ChatRequest {
  const text = [body.instructions ?? '', typeof body.input === 'string' ? body.input : JSON.stringify(body.input)];
  if (body.tools) text.push(JSON.stringify(body.tools));
  const chat: ChatRequest = { model: modelId, messages: [{ role: 'user', content: text.join('\n') }] };
  if (body.stream) chat.stream = true;
  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;
  if (body.tags !== undefined) chat.tags = body.tags;
  if (body.enable_debug !== undefined) chat.enable_debug = body.enable_debug;
  if (body.gateway_tool_ids !== undefined) chat.gateway_tool_ids = body.gateway_tool_ids;
  if (body.gateway_pending_id !== undefined) chat.gateway_pending_id = body.gateway_pending_id;
  if (body.compression_model !== undefined) chat.compression_model = body.compression_model;
  return chat;
}

export interface PreparedResponses {
  /** The client's Responses body, compressed when compression applies; gateway members still in (the provider layer removes them). */
  body: Record<string, unknown>;
  compression: AppliedCompression | undefined;
  translatable: boolean;
}

/**
 * Admission options for a Responses request: when it goes native, compression runs on the
 * client's Responses body (inside admission, so a compression error is a plain 400 before any
 * budget is reserved). A request only the native path can carry, but which cannot go native,
 * is refused here with the translation's error.
 */
export function nativeResponsesAdmission(
  request: FastifyRequest,
  client: ResponsesRequest,
  untranslatable: GatewayError | undefined,
): { options: AdmitOptions; prepared(): PreparedResponses | undefined } {
  let prepared: PreparedResponses | undefined;
  return {
    options: {
      compressCanonical: async (context) => {
        const eligible =
          (context.plan?.tools.size ?? 0) === 0 &&
          context.body.gateway_pending_id === undefined &&
          context.targets[0] !== undefined &&
          speaksResponses(context.targets[0]);
        if (!eligible) {
          if (untranslatable) throw untranslatable;
          return true;
        }
        const { body, compression } = await applyCompression(
          request,
          client as unknown as ChatRequest,
          context.model,
          context.conversations,
        );
        // Sent even when nothing was saved: it may carry the gateway's prompt_cache_key.
        prepared = {
          body: body as unknown as Record<string, unknown>,
          compression,
          translatable: untranslatable === undefined,
        };
        return false;
      },
      forwarded: () =>
        prepared && {
          body: prepared.body,
          counted: RESPONSES_COUNTED,
          storedContext: responsesStoredContext(prepared.body),
        },
    },
    prepared: () => prepared,
  };
}

/** Members of a Responses body the canonical estimate counts: the conversion's messages and tools (or the stand-in's text). */
const RESPONSES_COUNTED: ReadonlySet<string> = new Set(['input', 'instructions', 'tools']);

/** OpenAI's hosted tools: what they fetch or run is added to the prompt by OpenAI, unseen by the gateway. */
const isHostedTool = (type: unknown): boolean =>
  typeof type === 'string' &&
  (type.startsWith('web_search') || ['file_search', 'code_interpreter', 'mcp', 'image_generation'].includes(type));

/**
 * What a native Responses body makes OpenAI bill beyond what it carries (docs/budgets.md,
 * "Stored context"): a continued response (estimated from what the gateway recorded of it),
 * and a conversation, a stored prompt, item references, stored files or hosted tools (refused
 * on keys with a ceiling).
 */
export function responsesStoredContext(body: Record<string, unknown>): StoredContext[] {
  const contexts: StoredContext[] = [];
  if (typeof body.previous_response_id === 'string' && body.previous_response_id !== '')
    contexts.push({ kind: 'response', member: 'previous_response_id', id: body.previous_response_id });
  if (body.conversation !== undefined && body.conversation !== null)
    contexts.push({ kind: 'unknown', member: 'conversation', what: 'A stored conversation' });
  if (body.prompt !== undefined && body.prompt !== null)
    contexts.push({ kind: 'unknown', member: 'prompt', what: 'A stored prompt' });
  if (Array.isArray(body.input)) {
    const items = body.input as unknown[];
    if (items.some((item) => (item as { type?: unknown } | null)?.type === 'item_reference'))
      contexts.push({ kind: 'unknown', member: 'input', what: 'An item_reference' });
    if (items.some((item) => refersToStoredFile(item)))
      contexts.push({ kind: 'unknown', member: 'input', what: 'A file sent by file_id' });
  }
  if (Array.isArray(body.tools)) {
    const hosted = (body.tools as unknown[]).find((tool) => isHostedTool((tool as { type?: unknown } | null)?.type));
    if (hosted)
      contexts.push({
        kind: 'unknown',
        member: 'tools',
        what: `The hosted tool ${String((hosted as { type: unknown }).type)}`,
      });
  }
  return contexts;
}

/** The core's native route for an admitted Responses request that `nativeResponsesAdmission` prepared. */
export function openaiNativeRoute(
  call: Call,
  prepared: PreparedResponses,
): NativeRoute<Record<string, unknown>, NativeResponsesEvent> {
  call.admission.compression = prepared.compression;
  // A key with a ceiling: max_output_tokens set to what its reservation pays for (docs/budgets.md).
  const cap = call.admission.outputCapApplied;
  const body = cap === undefined ? prepared.body : { ...prepared.body, max_output_tokens: cap };
  // OpenAI keeps a response unless told not to: its context is recorded for a request that continues it.
  const stored = body.store !== false;
  return {
    speaks: speaksResponses,
    translatable: prepared.translatable,
    debugMember: 'responses_path',
    complete: async (target, options) => {
      const answer = await nativeResponsesComplete(body, target, options);
      const id = answer.body.id;
      return stored && typeof id === 'string' ? { ...answer, storedId: id } : answer;
    },
    stream: async (target, options) => {
      const upstream = await nativeResponsesStream(body, target, options);
      return stored ? { ...upstream, storedId: upstream.responseId } : upstream;
    },
  };
}

/** OpenAI's Response as it came, `model` echoing the client, with the gateway members. */
export function nativeResponseBody(answer: NativeJson<Record<string, unknown>>, client: ResponsesRequest) {
  return { ...answer.body, model: client.model, ...answer.extras };
}

const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete']);

/**
 * OpenAI's events as they come, the response objects echoing the client's model. The final
 * event (`response.completed` / `response.incomplete`) is held until the usage row is
 * committed and carries the gateway members, as on the translated path; a failure after the
 * first byte is a `response.failed` event.
 */
export function nativeResponsesEncoder(
  client: ResponsesRequest,
  extras: () => Record<string, unknown>,
): StreamEncoder<NativeResponsesEvent> {
  let final: NativeResponsesEvent | undefined;
  let last: Record<string, unknown> = { object: 'response' };
  const withModel = (data: Record<string, unknown>, more: Record<string, unknown> = {}) => {
    if (!data.response || typeof data.response !== 'object') return data;
    last = data.response as Record<string, unknown>;
    return { ...data, response: { ...last, model: client.model, ...more } };
  };
  return {
    // The first event may take a while: the client sees the answer start as soon as the upstream's did.
    flushHeaders: true,
    start: () => '',
    push(event) {
      if (FINAL_EVENTS.has(event.event)) {
        final = event;
        return '';
      }
      return sseNamedEvent(event.event, withModel(event.data));
    },
    finish: () => (final ? sseNamedEvent(final.event, withModel(final.data, extras())) : ''),
    fail(error) {
      const response = {
        ...last,
        model: client.model,
        status: 'failed',
        error: { code: error.code, message: error.message },
      };
      return sseNamedEvent('response.failed', { type: 'response.failed', response });
    },
  };
}
