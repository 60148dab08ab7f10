// The request every target is sent, and the plain HTTP(S) client that sets targets up and checks
// one real response of each before any load is sent.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const PROMPT =
  'You are helping benchmark an LLM gateway. Read the following short note and answer in one sentence. ' +
  'The note: the gateway forwards chat completion requests to an upstream provider, meters the tokens ' +
  'of every request, enforces per-key spending limits and streams server-sent events back to the client.';

/** The same conversation for every target; only the model id differs (ours is `{author}/{model}`). */
export function requestBody(model, mode) {
  const body = {
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant.' },
      { role: 'user', content: PROMPT },
    ],
    max_tokens: 64,
  };
  if (mode === 'stream') Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return JSON.stringify(body);
}

/** A plain HTTP(S) client for set-up and checks (not used for load). Certificates are not verified: all servers are ours, on 127.0.0.1. */
export function fetchText(url, { method = 'GET', headers = {}, body, timeoutMs = 10_000 } = {}) {
  const u = new URL(url);
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      u,
      {
        method,
        headers: body ? { 'content-type': 'application/json', ...headers } : headers,
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        const parts = [];
        res.on('data', (d) => parts.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Checks one real response; returns null when it is right, or a description of what is wrong.
 * `timeoutMs`: longer for a target under valgrind, whose first request compiles everything ~10× slower.
 */
export async function checkTarget(target, mode, timeoutMs = 10_000) {
  let res;
  try {
    res = await fetchText(target.url, { method: 'POST', headers: target.headers, body: target.body(mode), timeoutMs });
  } catch (error) {
    return `request failed: ${error.message}`;
  }
  const snippet = res.text.length > 300 ? res.text.slice(0, 300) + '…' : res.text;
  if (res.status < 200 || res.status > 299) return `HTTP ${res.status}: ${snippet}`;
  const type = String(res.headers['content-type'] ?? '');
  if (mode === 'json') {
    if (!type.includes('application/json')) return `HTTP ${res.status} but content-type "${type}": ${snippet}`;
    let json;
    try {
      json = JSON.parse(res.text);
    } catch {
      return `HTTP ${res.status} but the body is not JSON: ${snippet}`;
    }
    if (
      json.object !== 'chat.completion' ||
      typeof json.choices?.[0]?.message?.content !== 'string' ||
      !(json.usage?.total_tokens > 0)
    ) {
      return `HTTP ${res.status} but not a chat.completion with content and usage: ${snippet}`;
    }
    return null;
  }
  if (!type.includes('text/event-stream')) return `HTTP ${res.status} but content-type "${type}": ${snippet}`;
  const events = res.text
    .split(/\r?\n\r?\n/)
    .map((e) => e.trim())
    .filter(Boolean);
  const chunks = events
    .filter((e) => e.startsWith('data: {'))
    .map((e) => {
      try {
        return JSON.parse(e.slice(6));
      } catch {
        return null;
      }
    });
  if (chunks.some((c) => c === null || c.object !== 'chat.completion.chunk'))
    return `stream has an event that is not a chat.completion.chunk: ${snippet}`;
  if (chunks.filter((c) => c.choices?.length).length < 2) return `stream has fewer than 2 content chunks: ${snippet}`;
  if (!chunks.some((c) => c.usage?.total_tokens > 0))
    return `stream has no usage chunk although stream_options.include_usage was sent: ${snippet}`;
  if (events[events.length - 1] !== 'data: [DONE]')
    return `stream does not end with data: [DONE]: …${res.text.slice(-200)}`;
  return null;
}
