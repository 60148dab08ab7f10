import { CONSOLE_TOKEN_PREFIX, GATEWAY_KEY_PREFIX } from '../secrets/secret-codec.js';

/** What replaces a secret in a debug capture. */
export const REDACTED = '[redacted]';

/**
 * Header names whose values are credentials or session material: Authorization and
 * Proxy-Authorization, every `*api-key*` (x-api-key, x-goog-api-key, api-key), cookies, and any
 * name that says token, secret, password, signature or credential.
 */
const SECRET_HEADER = /authorization|api[-_]?key|cookie|token|secret|passw(or)?d|signature|credential/i;

/** Headers that describe the connection, not the request: never worth keeping. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Values that look like keys wherever they appear (a header the names above miss, a key pasted
 * into a prompt): the gateway's own keys and console tokens, OpenAI/Anthropic `sk-…`, Google
 * `AIza…`, GitHub `gh?_…`, Slack `xox?-…`, AWS access key ids and bearer credentials. Each is a
 * run of one character class: linear, whatever the input.
 */
const KEY_LIKE = new RegExp(
  [
    `${escapeRegExp(GATEWAY_KEY_PREFIX)}[A-Za-z0-9_-]{20,}`,
    `${escapeRegExp(CONSOLE_TOKEN_PREFIX)}[A-Za-z0-9_-]{20,}`,
    'sk-[A-Za-z0-9_-]{16,}',
    'AIza[A-Za-z0-9_-]{30,}',
    'gh[pousr]_[A-Za-z0-9]{30,}',
    'xox[abposr]-[A-Za-z0-9-]{10,}',
    'AKIA[0-9A-Z]{16}',
    '(?<=[Bb]earer )[A-Za-z0-9._~+/=-]{16,}',
  ].join('|'),
  'g',
);

/** `text` with every key-like value replaced by `[redacted]`. */
export function redactKeyLike(text: string): string {
  return text.replace(KEY_LIKE, REDACTED);
}

/** The headers worth keeping (at most `maxHeaders`, values cut at 2,000 characters), secrets redacted. */
export function redactHeaders(
  headers: Readonly<Record<string, string | string[] | number | undefined>>,
  maxHeaders = 100,
): Record<string, string> {
  const kept: Record<string, string> = {};
  let count = 0;
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined || CONNECTION_HEADERS.has(name.toLowerCase())) continue;
    if (++count > maxHeaders) break;
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    kept[name.toLowerCase()] = SECRET_HEADER.test(name) ? REDACTED : redactKeyLike(value.slice(0, 2_000));
  }
  return kept;
}

/** A part cut to `maxBytes` of UTF-8: its text and, when cut, how many bytes it had. */
export interface CappedText {
  text: string;
  /** The whole part's size in bytes when it was cut; absent when whole. */
  truncatedFrom?: number;
}

/** The marker a cut part ends with, so a reader never takes it for the whole. */
export const truncationMarker = (kept: number, total: number) => `\n…[truncated: ${kept} of ${total} bytes kept]`;

/**
 * `text` cut to `maxBytes` bytes of UTF-8 with the truncation marker (a character cut in two
 * becomes U+FFFD). `wholeBytes`: the size of the whole part when `text` is already a clipped
 * head of it (the call core clips before queueing: clipForQueue).
 */
export function capText(text: string, maxBytes: number, wholeBytes?: number): CappedText {
  // A string of n UTF-16 units holds at most 3n bytes: most parts need no byte count at all.
  if (wholeBytes === undefined && text.length * 3 <= maxBytes) return { text };
  const total = wholeBytes ?? Buffer.byteLength(text);
  if (total <= maxBytes) return { text };
  const kept = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  return { text: kept + truncationMarker(Math.min(maxBytes, Buffer.byteLength(kept)), total), truncatedFrom: total };
}

/** A part as queued: its text, and the whole part's size in bytes when the text is a clipped head of it. */
export interface ClippedText {
  text: string;
  wholeBytes?: number;
}

/** Characters kept beyond the cap when clipping for the queue: a key cut at the edge still matches its pattern. */
const CLIP_MARGIN = 256;

/**
 * A part clipped to a little more than `maxBytes` before it waits in the queue, so the queue holds
 * at most a few caps per capture whatever the request's size; redaction and the exact cut happen
 * when it is written (capText).
 */
export function clipForQueue(text: string, maxBytes: number): ClippedText {
  if (text.length * 3 <= maxBytes) return { text };
  const bytes = Buffer.byteLength(text);
  return bytes <= maxBytes ? { text } : { text: text.slice(0, maxBytes + CLIP_MARGIN), wholeBytes: bytes };
}
