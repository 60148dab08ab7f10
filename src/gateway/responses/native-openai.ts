import type { NativeEvent } from '../../providers/index.js';
import type { ChatRequest } from '../../canonical/chat-request.js';
import type { NativeOffer, StreamEncoder } from '../../pipeline/index.js';
import { GatewayError } from '../../pipeline/errors.js';
import { sseNamedEvent } from '../../pipeline/sse-writer.js';
import { refersToStoredFile, type StoredContext } from '../../pipeline/unseen-prompt.js';
import type { ResponsesRequest } from './responses-schema.js';
import { responsesToChat } from './convert-request.js';

/**
 * The Responses codec's native pass-through (docs/agent-endpoints.md, "Native pass-through to
 * OpenAI"): the client's own Responses body is offered to admission, which sends it upstream
 * (model replaced, gateway members removed, compressed in Responses form when compression
 * applies) when the model's first target accepts the Responses API natively (its adapter says
 * which: an `openai` provider with `responses_api`); the answer comes back as it was, `model`
 * echoing the client. Every input item and tool type passes,
 * including those the translation cannot carry (`additional_tools`, namespace, custom and hosted
 * tools, `previous_response_id`); such a request has no translated fallback.
 *
 * Translation stays in charge when gateway tools are injected or a `gateway_pending_id` is sent,
 * and when the first target does not serve the Responses API.
 */

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

/**
 * The native offer of a Responses request. `untranslatable`: the translation's refusal of a body
 * only the native path can carry (it is then refused unless it goes native).
 */
export function responsesOffer(client: ResponsesRequest, untranslatable: GatewayError | undefined): NativeOffer {
  return {
    format: 'openai-responses',
    body: client as unknown as Record<string, unknown>,
    untranslatable,
    counted: RESPONSES_COUNTED,
    storedContext: responsesStoredContext,
    outputCapMember: 'max_output_tokens',
    debugMember: 'responses_path',
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

/** OpenAI's Response as it came, `model` echoing the client, with the gateway members. */
export function nativeResponseBody(
  answer: Record<string, unknown>,
  client: ResponsesRequest,
  extras: Record<string, unknown>,
): Record<string, unknown> {
  return { ...answer, model: client.model, ...extras };
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
  session: { extras(): Record<string, unknown> },
): StreamEncoder<NativeEvent> {
  let final: NativeEvent | undefined;
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
    finish: () => (final ? sseNamedEvent(final.event, withModel(final.data, session.extras())) : ''),
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
