// Mock OpenAI-compatible upstream, run as its own process (so it does not take CPU from the
// process being measured):  node mock-upstream.mjs [--chunk-delay-ms=N]
// Prints one line `{"event":"listening","url":"http://127.0.0.1:<port>"}` on stdout.
//
// POST /v1/chat/completions
//   - JSON: a fixed chat.completion (Content-Length, keep-alive).
//   - "stream": true: a fixed SSE stream of 10 chat.completion.chunk events, then a usage chunk
//     when stream_options.include_usage is true (as OpenAI does), then `data: [DONE]`.
//     Each event is its own write; between writes the server yields with setImmediate (no timer
//     delay) unless --chunk-delay-ms=N (N > 0) asks for a fixed delay between events.
// Anything else: 404 in OpenAI's error envelope.
import { createServer } from 'node:http';

const delayArg = process.argv.find((a) => a.startsWith('--chunk-delay-ms='));
const CHUNK_DELAY_MS = delayArg ? Number(delayArg.split('=')[1]) : 0;

const CREATED = 1_735_689_600;
const MODEL = 'gpt-4o-mini-2024-07-18';
const PIECES = ['Hello', '!', ' This', ' is', ' a', ' fixed', ' benchmark', ' reply', ' from', ' the mock.'];
const CONTENT = PIECES.join('');
const USAGE = {
  prompt_tokens: 96,
  completion_tokens: PIECES.length,
  total_tokens: 96 + PIECES.length,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

const JSON_BODY = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench0000000000000000000000',
    object: 'chat.completion',
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: CONTENT, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: USAGE,
    system_fingerprint: 'fp_bench',
  }),
);

const chunk = (delta, finish, usage) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench0000000000000000000000',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: 'fp_bench',
    choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  })}\n\n`;

const STREAM_EVENTS = PIECES.map((piece, i) =>
  chunk(i === 0 ? { role: 'assistant', content: piece, refusal: null } : { content: piece }, null, null),
);
// The last content piece carries finish_reason (10 events in all).
STREAM_EVENTS[STREAM_EVENTS.length - 1] = chunk({ content: PIECES[PIECES.length - 1] }, 'stop', null);
const USAGE_EVENT = chunk(null, null, USAGE);
const DONE_EVENT = 'data: [DONE]\n\n';

const NOT_FOUND = JSON.stringify({
  error: { message: 'Unknown route', type: 'invalid_request_error', param: null, code: 'not_found' },
});
const BAD_REQUEST = JSON.stringify({
  error: { message: 'Body is not valid JSON', type: 'invalid_request_error', param: null, code: null },
});

const next = CHUNK_DELAY_MS > 0 ? (fn) => setTimeout(fn, CHUNK_DELAY_MS) : (fn) => setImmediate(fn);

function streamResponse(res, includeUsage) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': 'req_mock' });
  const events = includeUsage ? [...STREAM_EVENTS, USAGE_EVENT, DONE_EVENT] : [...STREAM_EVENTS, DONE_EVENT];
  let i = 0;
  let closed = false;
  res.on('close', () => (closed = true));
  const write = () => {
    if (closed) return;
    if (i === events.length - 1) return res.end(events[i]);
    res.write(events[i++]);
    next(write);
  };
  write();
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || (req.url !== '/v1/chat/completions' && req.url !== '/chat/completions')) {
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' }).end(NOT_FOUND);
    return;
  }
  const parts = [];
  req.on('data', (d) => parts.push(d));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(BAD_REQUEST);
      return;
    }
    if (body && body.stream === true)
      return streamResponse(res, Boolean(body.stream_options && body.stream_options.include_usage));
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': JSON_BODY.length,
      'x-request-id': 'req_mock',
    });
    res.end(JSON_BODY);
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 121_000;
server.requestTimeout = 0;

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(
    JSON.stringify({ event: 'listening', url: `http://127.0.0.1:${port}`, chunk_delay_ms: CHUNK_DELAY_MS }) + '\n',
  );
});

// Started with an IPC channel by the bench: exit when the bench goes away, whatever the reason.
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
