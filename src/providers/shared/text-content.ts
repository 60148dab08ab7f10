import type { ChatMessage } from '../../canonical/chat-request.js';

/** The text of a message, parts joined; image parts are skipped. */
export function textOf(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
