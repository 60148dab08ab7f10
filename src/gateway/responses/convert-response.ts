import { randomHex } from '../../server/random-ids.js';
import type { FinishReason, ProviderCompletion, TokenUsage } from '../../canonical/completion.js';
import type { ResponsesRequest } from './responses-schema.js';
import { customInput, FlatTools } from './flat-tools.js';

export function newItemId(prefix: 'msg' | 'fc' | 'ctc'): string {
  return `${prefix}_${randomHex(12)}`;
}

export function toResponsesUsage(usage: TokenUsage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedInputTokens,
      cache_creation_tokens: usage.cacheCreationInputTokens,
    },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** `length` and `content_filter` end a response as incomplete, with OpenAI's reason names. */
export function statusOf(reason: FinishReason): {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: string } | null;
} {
  if (reason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export interface ResponseIdentity {
  id: string;
  createdAt: number;
  model: string;
}

export type OutputItem =
  | {
      type: 'message';
      id: string;
      role: 'assistant';
      status: 'in_progress' | 'completed';
      content: Array<{ type: 'output_text'; text: string; annotations: []; logprobs: [] }>;
    }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      namespace?: string;
      arguments: string;
      status: 'in_progress' | 'completed';
    }
  | {
      type: 'custom_tool_call';
      id: string;
      call_id: string;
      name: string;
      namespace?: string;
      input: string;
      status: 'in_progress' | 'completed';
    };

/**
 * A provider's call of a flat function name as the item of the tool the client declared
 * (flat-tools.ts): a `custom_tool_call` with its free-form input for a custom tool, a
 * `function_call` with its `namespace` for a namespaced one, else the call as it came.
 */
export function callItem(
  names: FlatTools,
  call: { id: string; callId: string; name: string; arguments: string },
  status: 'in_progress' | 'completed',
): OutputItem {
  const origin = names.origin(call.name);
  const namespace = origin?.namespace !== undefined ? { namespace: origin.namespace } : {};
  if (origin?.kind === 'custom')
    return {
      type: 'custom_tool_call',
      id: call.id,
      call_id: call.callId,
      name: origin.name,
      ...namespace,
      input: status === 'completed' ? customInput(call.arguments) : '',
      status,
    };
  return {
    type: 'function_call',
    id: call.id,
    call_id: call.callId,
    name: origin?.name ?? call.name,
    ...namespace,
    arguments: status === 'completed' ? call.arguments : '',
    status,
  };
}

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed'): OutputItem {
  return { type: 'message', id, role: 'assistant', status, content: status === 'completed' ? [outputText(text)] : [] };
}

export function outputText(text: string) {
  return { type: 'output_text' as const, text, annotations: [] as [], logprobs: [] as [] };
}

/**
 * The Response object: what the request asked for echoed back (as OpenAI does), the output
 * items and usage. `response` holds everything but the parts that change while streaming.
 */
export function formatResponse(
  identity: ResponseIdentity,
  body: ResponsesRequest,
  state: {
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
    output: OutputItem[];
    usage: TokenUsage | null;
    incompleteDetails?: { reason: string } | null;
    error?: { code: string; message: string } | null;
  },
  extras: Record<string, unknown> = {},
) {
  const text = state.output
    .flatMap((item) => (item.type === 'message' ? item.content.map((c) => c.text) : []))
    .join('');
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    model: identity.model,
    output: state.output,
    output_text: text,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: null },
    store: false,
    temperature: body.temperature ?? null,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? null,
    truncation: 'disabled',
    usage: state.usage ? toResponsesUsage(state.usage) : null,
    user: body.user ?? null,
    ...extras,
  };
}

export function completionOutput(completion: ProviderCompletion, names: FlatTools): OutputItem[] {
  const output: OutputItem[] = [];
  const text = (completion.message.content ?? '') + (completion.message.refusal ?? '');
  const calls = completion.message.tool_calls ?? [];
  if (text !== '' || calls.length === 0) output.push(messageItem(newItemId('msg'), text, 'completed'));
  for (const call of calls) {
    const custom = names.origin(call.function.name)?.kind === 'custom';
    output.push(
      callItem(
        names,
        {
          id: newItemId(custom ? 'ctc' : 'fc'),
          callId: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        },
        'completed',
      ),
    );
  }
  return output;
}

export function formatCompletedResponse(
  identity: ResponseIdentity,
  body: ResponsesRequest,
  completion: ProviderCompletion,
  extras: Record<string, unknown>,
) {
  const { status, incomplete_details } = statusOf(completion.finishReason);
  return formatResponse(
    identity,
    body,
    {
      status,
      output: completionOutput(completion, FlatTools.of(body)),
      usage: completion.usage,
      incompleteDetails: incomplete_details,
    },
    extras,
  );
}
