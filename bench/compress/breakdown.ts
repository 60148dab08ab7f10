// Where the input tokens of the chat-shape requests are, before and after compression: what
// the invariants protect (system prompt, user messages, assistant messages, tool output of the
// latest turns) and what compression may reduce. Text tokens only (message framing,
// a few tokens per message, is left out), so the shares bound what any strategy can reach.
import { compressPayload } from '../../src/compress/index.js';
import { countTextTokens } from '../../src/tokenize/index.js';
import { prefixes, toShape, type Conversation } from './dataset.js';

type Msg = Record<string, unknown>;
type Call = { function: { arguments: string } };

export const CATEGORIES = [
  'system prompt',
  'user messages',
  'assistant messages',
  'tool output, latest 4 turns',
  'tool output, older turns',
] as const;
export type Category = (typeof CATEGORIES)[number];

const tokens = (text: unknown) => (typeof text === 'string' ? countTextTokens(text, 'o200k_base') : 0);

function messageTokens(m: Msg): number {
  const calls = (m.tool_calls as Call[] | undefined) ?? [];
  return tokens(m.content) + calls.reduce((n, c) => n + tokens(c.function.arguments), 0);
}

export function tokenBreakdown(
  conversations: Conversation[],
  keep: number,
  compress: (body: Record<string, unknown>) => Record<string, unknown> = (b) => compressPayload(b).body,
): Record<Category, { before: number; after: number }> {
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, { before: 0, after: 0 }])) as Record<
    Category,
    { before: number; after: number }
  >;
  for (const conv of conversations) {
    for (const messages of prefixes(conv)) {
      const body = toShape(messages, 'chat') as { messages: Msg[] };
      const compressed = compress(body) as { messages: Msg[] };
      const turns = messages.filter(
        (m) => m.role === 'assistant' && ((m.tool_calls as unknown[] | undefined)?.length ?? 0) > 0,
      ).length;
      let turn = -1;
      body.messages.forEach((m, i) => {
        if (m.role === 'assistant' && ((m.tool_calls as unknown[] | undefined)?.length ?? 0) > 0) turn++;
        const category: Category =
          m.role === 'system'
            ? 'system prompt'
            : m.role === 'user'
              ? 'user messages'
              : m.role === 'assistant'
                ? 'assistant messages'
                : turn >= turns - keep
                  ? 'tool output, latest 4 turns'
                  : 'tool output, older turns';
        out[category].before += messageTokens(m);
        out[category].after += messageTokens(compressed.messages[i]!);
      });
    }
  }
  return out;
}
