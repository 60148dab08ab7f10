// Tool output arrives either as a string or as an array of content parts. Strategies see one
// string, the output without the envelope an agent wraps it in (output-envelope.ts); these
// helpers read it and write it back in the shape and envelope it came in.
import { BoundedCache, registerCache } from '../cache.js';
import { isPlaceholder } from '../filters/markers.js';
import { openEnvelope, sealEnvelope, type OutputEnvelope } from './output-envelope.js';

type Part = Record<string, unknown>;
const TEXT_PART_TYPES = new Set(['text', 'input_text', 'output_text']);

export interface ReadText {
  text: string;
  /** False for images or other non-text parts: such results are never rewritten. */
  editable: boolean;
  /** The agent's wrapping around `text`, when it has one. */
  envelope?: OutputEnvelope;
}

/** The text as sent, envelope included. */
function sentText(content: unknown): ReadText {
  if (typeof content === 'string') return { text: content, editable: true };
  if (!Array.isArray(content) || content.length === 0) return { text: '', editable: false };
  const texts: string[] = [];
  for (const part of content as Part[]) {
    if (
      typeof part !== 'object' ||
      part === null ||
      typeof part.type !== 'string' ||
      !TEXT_PART_TYPES.has(part.type) ||
      typeof part.text !== 'string'
    )
      return { text: '', editable: false };
    texts.push(part.text);
  }
  return { text: texts.join('\n'), editable: true };
}

export function readContent(content: unknown): ReadText {
  const sent = sentText(content);
  const envelope = sent.editable ? openEnvelope(sent.text) : undefined;
  return envelope ? { text: envelope.output, editable: true, envelope } : sent;
}

/**
 * Same shape and envelope as `original`: a string stays a string, parts collapse into one part.
 * A placeholder (an output masked, or a pointer to an identical one) stands for the whole output,
 * envelope included: an old run's chunk id and wall time would cost more than the placeholder.
 */
export function writeContent(original: unknown, output: string): unknown {
  const text = withEnvelope(isPlaceholder(output) ? undefined : openEnvelope(sentText(original).text), output);
  if (typeof original === 'string' || !Array.isArray(original)) return text;
  // Keep the last part's extra members (cache_control sits there) so caching hints survive.
  const last = original[original.length - 1] as Part;
  return [{ ...last, text }];
}

/** `output` as it is sent: in its envelope, unless it is a placeholder, which stands for the whole output. */
export function withEnvelope(envelope: OutputEnvelope | undefined, output: string): string {
  return envelope && !isPlaceholder(output) ? sealEnvelope(envelope, output) : output;
}

function parseObject(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

// Every request re-sends every earlier call's arguments. Parsed arguments are shared between
// requests: strategies only read them.
const parsedArgs = registerCache(new BoundedCache<Record<string, unknown> | null>(4 * 1024 * 1024));

export function parseArgs(raw: unknown): Record<string, unknown> | null {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== 'string' || raw[0] !== '{') return null;
  return parsedArgs.getOrCompute(raw, parseObject, () => raw.length);
}

export function systemTextOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Part[]).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');
}
