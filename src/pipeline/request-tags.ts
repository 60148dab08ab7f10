import { GatewayError } from './errors.js';

export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 64;
const TAG_PATTERN = /^[^\x00-\x1f\x7f,]+$/;

/**
 * Tags from the body and the comma-separated X-Gateway-Tags header, merged in that order,
 * trimmed and de-duplicated. At most 20 tags of at most 64 characters, no control characters
 * and no commas (they would not survive the header form or a CSV export unambiguously).
 */
export function mergeTags(bodyTags: string[] | undefined, header: string | string[] | undefined): string[] {
  if (header === undefined && (bodyTags === undefined || bodyTags.length === 0)) return [];
  const fromHeader = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  const merged: string[] = [];
  const seen = new Set<string>();
  for (const [source, raw] of [
    ...(bodyTags ?? []).map((t) => ['tags', t] as const),
    ...fromHeader.map((t) => ['X-Gateway-Tags', t] as const),
  ]) {
    const tag = raw.trim();
    if (!tag) {
      if (source === 'tags')
        throw new GatewayError('invalid_request', { message: 'Tags must not be empty.', param: 'tags' });
      continue;
    }
    if (tag.length > MAX_TAG_LENGTH) {
      throw new GatewayError('invalid_request', {
        message: `Each tag may have at most ${MAX_TAG_LENGTH} characters.`,
        param: 'tags',
      });
    }
    if (!TAG_PATTERN.test(tag)) {
      throw new GatewayError('invalid_request', {
        message: 'Tags may not contain commas or control characters.',
        param: 'tags',
      });
    }
    if (seen.has(tag)) continue;
    seen.add(tag);
    merged.push(tag);
  }
  if (merged.length > MAX_TAGS)
    throw new GatewayError('invalid_request', { message: `At most ${MAX_TAGS} tags per request.`, param: 'tags' });
  return merged;
}

/** `X-Gateway-Debug: true|1|yes` turns debug output on, like `enable_debug: true`. */
export function headerFlag(value: string | string[] | undefined): boolean {
  const text = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
  return text === 'true' || text === '1' || text === 'yes' || text === 'on';
}
