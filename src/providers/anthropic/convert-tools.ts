import type { ChatRequest } from '../../canonical/chat-request.js';
import type { AnthropicTool, AnthropicToolChoice } from './wire.js';

export function convertTools(tools: ChatRequest['tools']): AnthropicTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  }));
}

export function convertToolChoice(request: ChatRequest): AnthropicToolChoice | undefined {
  // Anthropic rejects tool_choice without tools.
  if (!request.tools || request.tools.length === 0) return undefined;
  const choice = request.tool_choice;
  const mode = typeof choice === 'string' ? choice : choice?.type;
  const noParallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (mode === 'none') return { type: 'none' };
  if (mode === 'required') return { type: 'any', ...noParallel };
  if (typeof choice === 'object' && choice.type === 'function')
    return { type: 'tool', name: choice.function.name, ...noParallel };
  if (mode === 'auto' || request.parallel_tool_calls === false) return { type: 'auto', ...noParallel };
  return undefined;
}
