// What the soak sends: the mix of request kinds and the body of each.

export type Kind = 'chat' | 'stream' | 'count_tokens' | 'compress';
export const MIX: Array<[Kind, number]> = [
  ['chat', 0.4],
  ['stream', 0.3],
  ['count_tokens', 0.15],
  ['compress', 0.15],
];

const toolOutput = Array.from(
  { length: 60 },
  (_, i) => `src/module${i % 7}/file${i}.ts:${i + 1}: const value${i} = compute(${i});`,
).join('\n');
export function requestFor(kind: Kind, n: number): { path: string; body: unknown } {
  const messages = [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: `Request ${n}: summarise the following in one line.` },
  ];
  switch (kind) {
    case 'chat':
      return { path: '/v1/chat/completions', body: { model: 'openai/gpt-4o-mini', messages, max_tokens: 64 } };
    case 'stream':
      return {
        path: '/v1/chat/completions',
        body: {
          model: 'openai/gpt-4o-mini',
          messages,
          max_tokens: 64,
          stream: true,
          stream_options: { include_usage: true },
        },
      };
    case 'count_tokens':
      return { path: '/v1/count_tokens', body: { model: 'openai/gpt-4o-mini', messages } };
    case 'compress':
      return {
        path: '/v1/compress',
        body: {
          model: 'openai/gpt-4o-mini',
          compression_model: 'codex',
          messages: [
            ...messages,
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: `call_${n}`, type: 'function', function: { name: 'grep', arguments: '{"pattern":"compute"}' } },
              ],
            },
            { role: 'tool', tool_call_id: `call_${n}`, content: toolOutput },
          ],
        },
      };
  }
}
