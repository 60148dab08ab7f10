import type { ApiKey } from '../store/api-keys.js';
import { GATEWAY_ONLY_FIELDS } from '../providers/index.js';
import { countTextTokens, type TokenizerName } from '../tokenize/index.js';
import { countTextTokensOffloaded } from '../offload/index.js';
import type { CoreServices } from './services.js';
import { GatewayError } from './errors.js';

/**
 * What a request makes the provider bill as input beyond the prompt the canonical estimate
 * counts (docs/budgets.md, "What the estimate cannot see"), for the admission of a key with a
 * ceiling: forwarded members the count does not read are counted as their JSON text; a stored
 * response the request continues adds the context the gateway recorded when it returned that
 * response; stored context the gateway has no record of is refused (`stored_context_unbounded`),
 * because nothing bounds what it costs.
 */

/** Stored context a request makes the provider bill. */
export type StoredContext =
  /** A stored response the request continues: its context is what the gateway recorded of it, if it did. */
  | { kind: 'response'; member: string; id: string }
  /** Context only the provider knows (a conversation, a file, an MCP server's tools, a hosted tool's results). */
  | { kind: 'unknown'; member: string; what: string };

/** The body that goes upstream, as admission must see it. */
export interface ForwardedBody {
  body: Record<string, unknown>;
  /** Members the canonical estimate already counts (the prompt's text and the tools). */
  counted: ReadonlySet<string>;
  storedContext: StoredContext[];
}

/** Members of a canonical (chat completions) body that `countRequestTokens` reads. */
export const CANONICAL_COUNTED: ReadonlySet<string> = new Set(['messages', 'system', 'tools']);

/** The canonical body as admission must see it: forwarded to an OpenAI-compatible upstream with every member it holds. */
export function canonicalForwarded(body: Record<string, unknown>): ForwardedBody {
  const storedContext: StoredContext[] = [];
  // OpenAI's search models add what they found to the prompt they bill.
  if (body.web_search_options !== undefined && body.web_search_options !== null)
    storedContext.push({ kind: 'unknown', member: 'web_search_options', what: 'Web search' });
  if (Array.isArray(body.messages) && body.messages.some((message) => refersToStoredFile(message)))
    storedContext.push({ kind: 'unknown', member: 'messages', what: 'A file sent by file_id' });
  return { body, counted: CANONICAL_COUNTED, storedContext };
}

/**
 * Members that are sampling or control parameters, never text the provider bills as input; and
 * the two whose billed context is `StoredContext`'s to estimate. Every other member that goes
 * upstream (`prediction`, `response_format`, `text`, a member the gateway does not know) counts.
 */
const PARAMETERS: ReadonlySet<string> = new Set([
  'model',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'seed',
  'stop',
  'stop_sequences',
  'presence_penalty',
  'frequency_penalty',
  'parallel_tool_calls',
  'tool_choice',
  'user',
  'store',
  'metadata',
  'reasoning_effort',
  'reasoning',
  'thinking',
  'service_tier',
  'include',
  'truncation',
  'prompt_cache_key',
  'previous_response_id',
  'conversation',
  ...GATEWAY_ONLY_FIELDS,
]);

/**
 * The tokens of the members of `body` that go upstream and neither the canonical count nor
 * `PARAMETERS` cover, as JSON text (a big one counted on a pool thread: it comes from the client).
 */
export async function uncountedMemberTokens(
  body: Record<string, unknown>,
  counted: ReadonlySet<string>,
  tokenizer: TokenizerName,
): Promise<number> {
  let tokens = 0;
  for (const member in body) {
    if (counted.has(member) || PARAMETERS.has(member)) continue;
    const json = JSON.stringify(body[member]);
    if (json === undefined) continue;
    tokens += countTextTokens(member, tokenizer) + (await countTextTokensOffloaded(json, tokenizer));
  }
  return tokens;
}

/**
 * The input tokens beyond the canonical count that `forwarded` makes the provider bill; throws
 * `stored_context_unbounded` (param: the member) for stored context the gateway cannot know.
 */
export async function unseenPromptTokens(
  services: CoreServices,
  key: ApiKey,
  forwarded: ForwardedBody,
  tokenizer: TokenizerName,
): Promise<number> {
  let tokens = await uncountedMemberTokens(forwarded.body, forwarded.counted, tokenizer);
  for (const context of forwarded.storedContext) {
    if (context.kind === 'response') {
      const recorded = await services.storedResponses?.contextTokens(key.organizationId, context.id);
      if (recorded !== undefined) {
        tokens += recorded;
        continue;
      }
    }
    throw unboundedContext(context, key.maxUsageUsd);
  }
  return tokens;
}

function unboundedContext(context: StoredContext, ceilingUsd: number | null): GatewayError {
  const what =
    context.kind === 'response'
      ? `${context.member} "${context.id}" is not a response this gateway returned to your organization in the last 30 days`
      : `${context.what} makes the provider bill context the gateway cannot see`;
  return new GatewayError('stored_context_unbounded', {
    param: context.member,
    message: `${what}, so its cost cannot be bounded under ${ceilingUsd === null ? 'the spend limits that apply to this key' : `this key's monthly limit of $${ceilingUsd}`}. Send the whole conversation instead, or use a key without a limit.`,
  });
}

/** How deep under one input item a file reference is looked for (message → content → tool result → its content → source). */
const FILE_REFERENCE_DEPTH = 6;

/**
 * Whether an item of a conversation refers to a file the provider stores (`file_id`: OpenAI's
 * `input_file` and `input_image`, Anthropic's `file` sources and `container_upload`): its content
 * is billed as input and the gateway never sees it.
 */
export function refersToStoredFile(item: unknown, depth = FILE_REFERENCE_DEPTH): boolean {
  if (depth === 0 || typeof item !== 'object' || item === null) return false;
  if (Array.isArray(item)) return item.some((element) => refersToStoredFile(element, depth - 1));
  const record = item as Record<string, unknown>;
  if (typeof record.file_id === 'string') return true;
  for (const member in record) {
    const value = record[member];
    if (typeof value === 'object' && value !== null && refersToStoredFile(value, depth - 1)) return true;
  }
  return false;
}
