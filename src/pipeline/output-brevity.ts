/**
 * Output brevity (issue 19, item 5): an opt-in per key (`output_brevity`) or per request
 * (`X-Gateway-Output-Brevity: on|off`) that adds one fixed instruction asking the model to answer
 * without filler. Output tokens cost 4–5× input tokens, and coding agents' answers carry
 * preambles, restatements and closing summaries the agent loop never reads.
 *
 * Cache-safe by construction: the text is a constant, added at the end of the system prompt
 * (after the client's own system content, before tools' use and messages), so every request of a
 * conversation carries the same bytes and the provider's cached prefix stays valid; switching the
 * setting mid-conversation changes the prefix once. Added before compression, so the engine's
 * breakpoint at the end of the system prompt covers it.
 */
export const BREVITY_INSTRUCTION =
  'Answer concisely: no preamble, no restating of the request, no filler, no closing summary. ' +
  'Keep code, commands, file paths, numbers and error messages complete and exact.';

/**
 * The body with the brevity instruction at the end of its system prompt, in the body's own wire
 * format (chat completions, Anthropic Messages, OpenAI Responses); the input is not modified.
 * A body that already carries the instruction is returned as it is (a client resending what
 * /v1/compress gave it).
 */
export function withBrevityInstruction(body: Record<string, unknown>): Record<string, unknown> {
  if ('system' in body) return { ...body, system: appendToMessagesSystem(body.system) };
  if ('input' in body) return { ...body, instructions: appendToText(body.instructions) };
  if (Array.isArray(body.messages)) return { ...body, messages: withChatSystemMessage(body.messages) };
  return body;
}

function appendToText(text: unknown): unknown {
  if (text === undefined || text === null || text === '') return BREVITY_INSTRUCTION;
  if (typeof text !== 'string' || text.endsWith(BREVITY_INSTRUCTION)) return text;
  return `${text}\n\n${BREVITY_INSTRUCTION}`;
}

function appendToMessagesSystem(system: unknown): unknown {
  if (!Array.isArray(system)) return appendToText(system);
  const last = system.at(-1) as { type?: unknown; text?: unknown } | undefined;
  if (last?.type === 'text' && last.text === BREVITY_INSTRUCTION) return system;
  return [...(system as unknown[]), { type: 'text', text: BREVITY_INSTRUCTION }];
}

/** After the leading system/developer messages, so a client's own first message stays first. */
function withChatSystemMessage(messages: unknown[]): unknown[] {
  let at = 0;
  while (at < messages.length && isInstructionMessage(messages[at])) at++;
  const previous = messages[at - 1] as { content?: unknown } | undefined;
  if (previous?.content === BREVITY_INSTRUCTION) return messages;
  return [...messages.slice(0, at), { role: 'system', content: BREVITY_INSTRUCTION }, ...messages.slice(at)];
}

function isInstructionMessage(message: unknown): boolean {
  const role = (message as { role?: unknown } | null)?.role;
  return role === 'system' || role === 'developer';
}
