export const MAX_ERROR_MESSAGE_CHARS = 500;

// Providers sometimes echo the credential back ("Incorrect API key provided: sk-abc…"), and
// these messages end up in client responses and logs.
const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_-]{6,}/g, '[redacted]'],
  [/\bAIza[0-9A-Za-z_-]{10,}/g, '[redacted]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, '$1 [redacted]'],
  [/\b(api[_-]?key|key)=[^&\s"']{6,}/gi, '$1=[redacted]'],
];

/** Removes anything credential-like and keeps the message short enough for an error envelope. */
export function sanitizeMessage(message: string, secrets: Array<string | undefined> = []): string {
  let out = message;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > MAX_ERROR_MESSAGE_CHARS ? `${out.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…` : out;
}
