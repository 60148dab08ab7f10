import type { ChatRequest } from '../../canonical/chat-request.js';
import { toGeminiParameters } from './convert-schema.js';
import type { GeminiRequestBody } from './wire.js';

export function convertTools(tools: ChatRequest['tools']): GeminiRequestBody['tools'] {
  if (!tools || tools.length === 0) return undefined;
  return [
    {
      functionDeclarations: tools.map((tool) => {
        const parameters = toGeminiParameters(tool.function.parameters);
        return {
          name: tool.function.name,
          ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
          ...(parameters ? { parameters } : {}),
        };
      }),
    },
  ];
}

export function convertToolConfig(request: ChatRequest): GeminiRequestBody['toolConfig'] {
  const choice = request.tool_choice;
  if (choice === undefined || !request.tools || request.tools.length === 0) return undefined;
  if (typeof choice === 'object' && choice.type === 'function') {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  const mode = typeof choice === 'string' ? choice : choice.type;
  return { functionCallingConfig: { mode: mode === 'none' ? 'NONE' : mode === 'required' ? 'ANY' : 'AUTO' } };
}
