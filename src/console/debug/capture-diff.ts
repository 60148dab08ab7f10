import { changed, lineDiff, type DiffLine } from './line-diff.js';

/** The members that hold a conversation's items, by wire format: chat and Messages, Responses, Gemini. */
const ITEM_LISTS = ['messages', 'input', 'contents'] as const;
/** Lines an item is rendered to at most (a stored body is at most the part cap, so this is rarely reached). */
const MAX_ITEM_LINES = 20_000;

export type ItemStatus = 'unchanged' | 'changed' | 'added' | 'removed';

export interface ItemDiff {
  index: number;
  status: ItemStatus;
  role: string | null;
  received_chars: number;
  sent_chars: number;
  /** The item's lines, received → sent; only for a changed item. */
  lines?: DiffLine[];
}

export interface CaptureDiff {
  /** False when either body is not whole JSON (cut at the part cap, or not JSON): nothing is compared. */
  comparable: boolean;
  reason: string | null;
  /** Which member held the items (`messages`, `input`, `contents`), or null when neither body had one. */
  item_list: string | null;
  items: ItemDiff[];
  /** The rest of the body (model, tools, system, options): its lines, received → sent. */
  other_members: DiffLine[];
  summary: Record<ItemStatus, number> & { received_chars: number; sent_chars: number };
}

/**
 * Lines of a JSON value, one per leaf, named by path (`content[1].text: …`); a string's own line
 * breaks stay line breaks, so a tool output compression cut shows as the lines it lost.
 */
export function valueLines(value: unknown, path = '', out: string[] = []): string[] {
  if (out.length >= MAX_ITEM_LINES) return out;
  if (Array.isArray(value)) {
    if (value.length === 0) out.push(`${path}: []`);
    value.forEach((item, i) => valueLines(item, `${path}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) out.push(`${path}: {}`);
    for (const [name, member] of entries) valueLines(member, path ? `${path}.${name}` : name, out);
  } else if (typeof value === 'string') {
    const [first, ...rest] = value.split('\n');
    out.push(`${path}: ${first}`);
    for (const line of rest) if (out.length < MAX_ITEM_LINES) out.push(line);
  } else out.push(`${path}: ${JSON.stringify(value)}`);
  return out;
}

const size = (value: unknown) => (value === undefined ? 0 : JSON.stringify(value).length);
const roleOf = (item: unknown) =>
  item !== null && typeof item === 'object' && typeof (item as { role?: unknown }).role === 'string'
    ? (item as { role: string }).role
    : item !== null && typeof item === 'object' && typeof (item as { type?: unknown }).type === 'string'
      ? (item as { type: string }).type
      : null;

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the gateway changed between the body it received and the body one upstream attempt got:
 * the conversation's items paired by position (compression rewrites items, it never drops or
 * reorders them), each unchanged, changed (with its line diff), added or removed, then the rest of
 * the body. A translated request (chat body sent to a Messages upstream) shows every item changed:
 * the formats differ, not only compression.
 */
export function captureDiff(receivedText: string, sentText: string): CaptureDiff {
  const summary = { unchanged: 0, changed: 0, added: 0, removed: 0, received_chars: 0, sent_chars: 0 };
  const received = parseObject(receivedText);
  const sent = parseObject(sentText);
  if (!received || !sent) {
    const reason = !received ? 'The received body is not whole JSON.' : 'The body sent upstream is not whole JSON.';
    return { comparable: false, reason, item_list: null, items: [], other_members: [], summary };
  }
  const list = ITEM_LISTS.find((name) => Array.isArray(received[name]) || Array.isArray(sent[name])) ?? null;
  const left = list && Array.isArray(received[list]) ? (received[list] as unknown[]) : [];
  const right = list && Array.isArray(sent[list]) ? (sent[list] as unknown[]) : [];
  const items: ItemDiff[] = [];
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const before = left[index];
    const after = right[index];
    const item: ItemDiff = {
      index,
      status: 'unchanged',
      role: roleOf(after ?? before),
      received_chars: size(before),
      sent_chars: size(after),
    };
    if (index >= left.length) item.status = 'added';
    else if (index >= right.length) item.status = 'removed';
    else {
      const lines = lineDiff(valueLines(before), valueLines(after));
      if (changed(lines)) {
        item.status = 'changed';
        item.lines = lines;
      }
    }
    summary[item.status]++;
    summary.received_chars += item.received_chars;
    summary.sent_chars += item.sent_chars;
    items.push(item);
  }
  const rest = (body: Record<string, unknown>) => {
    const copy = { ...body };
    if (list) delete copy[list];
    return copy;
  };
  const otherMembers = lineDiff(valueLines(rest(received)), valueLines(rest(sent)));
  return { comparable: true, reason: null, item_list: list, items, other_members: otherMembers, summary };
}
