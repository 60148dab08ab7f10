import { randomBytes } from 'node:crypto';
import type { ToolCall } from '../../canonical/chat-request.js';
import { isRecord } from '../shared/usage.js';
import type { GeminiResponsePart } from './wire.js';

/** Gemini function calls have no id; OpenAI clients need one to send the result back. */
export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/** Visible text and function calls of a candidate; thought summaries are skipped. */
export function readParts(parts: unknown): { text: string; sawText: boolean; toolCalls: ToolCall[] } {
  let text = '';
  let sawText = false;
  const toolCalls: ToolCall[] = [];
  for (const part of Array.isArray(parts) ? (parts as GeminiResponsePart[]) : []) {
    if (!isRecord(part) || part.thought === true) continue;
    if (typeof part.text === 'string') {
      text += part.text;
      sawText = true;
    }
    if (isRecord(part.functionCall)) {
      toolCalls.push({
        id: newToolCallId(),
        type: 'function',
        function: {
          name: String(part.functionCall.name ?? ''),
          arguments: JSON.stringify(part.functionCall.args ?? {}),
        },
      });
    }
  }
  return { text, sawText, toolCalls };
}
