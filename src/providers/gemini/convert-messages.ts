import type { ChatMessage, ContentPart } from '../../canonical/chat-request.js';
import { textOf } from '../shared/text-content.js';
import type { GeminiContent, GeminiPart } from './wire.js';
import { forTranslation, parseDataUrl, unsupportedInput } from '../shared/legacy-messages.js';

const EXTENSION_MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  pdf: 'application/pdf',
};

function imagePart(url: string): GeminiPart {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { inlineData: { mimeType: match[1] as string, data: match[2] as string } };
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return { fileData: { mimeType: EXTENSION_MIME[extension] ?? 'image/jpeg', fileUri: url } };
}

function partOf(part: ContentPart): GeminiPart | undefined {
  switch (part.type) {
    case 'text':
      return part.text === '' ? undefined : { text: part.text };
    case 'refusal':
      return part.refusal === '' ? undefined : { text: part.refusal };
    case 'image_url':
      return imagePart(part.image_url.url);
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data } };
    case 'file': {
      const inline = part.file.file_data ? parseDataUrl(part.file.file_data) : undefined;
      if (!inline) throw unsupportedInput('gemini', 'a file by file_id');
      return { inlineData: inline };
    }
  }
}

function contentParts(content: ChatMessage['content']): GeminiPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map(partOf).filter((p): p is GeminiPart => p !== undefined);
}

function parseArgs(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** functionResponse.response must be an object; a JSON-object tool result is sent as is. */
function toolResponse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // plain-text result
  }
  return { result: text };
}

/**
 * Chat messages → Gemini contents. Tool results carry the function *name* in Gemini, not the
 * call id, so names are looked up from the earlier assistant tool calls. Consecutive contents of
 * one role are merged (parallel function responses must share one turn).
 */
export function convertContents(messages: ChatMessage[]): GeminiContent[] {
  const namesById = new Map<string, string>();
  const out: GeminiContent[] = [];
  const append = (role: GeminiContent['role'], parts: GeminiPart[]): void => {
    if (parts.length === 0) return;
    const previous = out[out.length - 1];
    if (previous && previous.role === role) previous.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const message of forTranslation(messages)) {
    if (message.role === 'user') append('user', contentParts(message.content));
    else if (message.role === 'assistant') {
      const parts: GeminiPart[] = contentParts(message.content).filter((p) => 'text' in p);
      for (const call of message.tool_calls ?? []) {
        namesById.set(call.id, call.function.name);
        parts.push({ functionCall: { name: call.function.name, args: parseArgs(call.function.arguments) } });
      }
      append('model', parts);
    } else if (message.role === 'tool') {
      const name = namesById.get(message.tool_call_id ?? '') ?? message.name ?? 'unknown_function';
      append('user', [{ functionResponse: { name, response: toolResponse(textOf(message.content)) } }]);
    }
  }
  return out;
}

export function convertSystemInstruction(messages: ChatMessage[]): { parts: Array<{ text: string }> } | undefined {
  const parts = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => ({ text: textOf(m.content) }))
    .filter((p) => p.text !== '');
  return parts.length > 0 ? { parts } : undefined;
}
