import type { ChatRequest } from '../canonical/chat-request.js';
import { GatewayError } from './errors.js';

/**
 * Rules the schema cannot express: which message fields go with which role, and that a
 * tool_choice naming a function refers to a declared tool. Each failure names its param.
 */
export function validateChatRequest(request: ChatRequest): void {
  request.messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    if (message.role === 'tool') {
      if (!message.tool_call_id) throw invalid(`${at}.tool_call_id`, 'A tool message needs tool_call_id.');
    } else if (message.tool_call_id !== undefined) {
      throw invalid(`${at}.tool_call_id`, 'tool_call_id is only allowed on tool messages.');
    }
    if (message.role === 'function' && !message.name)
      throw invalid(`${at}.name`, 'A function message needs the name of the function it answers.');
    // `null` is what clients echo back from a response without calls: the same as absent.
    if (message.tool_calls != null && message.role !== 'assistant') {
      throw invalid(`${at}.tool_calls`, 'tool_calls is only allowed on assistant messages.');
    }
    if (message.function_call != null && message.role !== 'assistant') {
      throw invalid(`${at}.function_call`, 'function_call is only allowed on assistant messages.');
    }
    const hasContent = message.content !== undefined && message.content !== null;
    const assistantAct =
      message.role === 'assistant' &&
      Boolean(message.tool_calls?.length || message.refusal || message.function_call || message.audio);
    if (!hasContent && !assistantAct) {
      throw invalid(`${at}.content`, `A ${message.role} message needs content.`);
    }
    if (Array.isArray(message.content) && message.role !== 'user') {
      const allowed = message.role === 'assistant' ? ASSISTANT_PARTS : TEXT_ONLY;
      const other = message.content.findIndex((part) => !allowed.has(part.type));
      if (other >= 0)
        throw invalid(
          `${at}.content[${other}]`,
          `Only ${[...allowed].join(' and ')} parts are allowed in ${message.role} messages.`,
        );
    }
  });
  const choice = request.tool_choice;
  if (typeof choice === 'object' && choice.type === 'function') {
    const declared = request.tools?.some((tool) => tool.function.name === choice.function.name);
    if (!declared)
      throw invalid('tool_choice', `tool_choice names function "${choice.function.name}", which is not in tools.`);
  }
  if ((choice === 'required' || (typeof choice === 'object' && choice.type === 'required')) && !request.tools?.length) {
    throw invalid('tool_choice', 'tool_choice "required" needs at least one tool.');
  }
}

const TEXT_ONLY: ReadonlySet<string> = new Set(['text']);
const ASSISTANT_PARTS: ReadonlySet<string> = new Set(['text', 'refusal']);

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', { message, param });
}
