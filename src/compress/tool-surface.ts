// The tool surface of a conversation, decided once (issue 19, item 5). Tool definitions sit at
// the very start of the prompt, so any change to them makes the provider write the whole prompt
// again: tools are dropped only by a decision taken at the conversation's first request, stored
// in its state and reproduced byte for byte by every later request, whatever the key's history
// says by then. A group is dropped only when the key's own finished conversations show it
// unused: offered in at least 24 of them and called in none.
import type { Conversation, ToolDefinition } from './types.js';

export const TOOL_SURFACE_DECISION = 'tool_surface_decision';
/** Finished conversations of the key that must have offered a group, never calling it, before it is dropped. */
export const MIN_OFFERED_CONVERSATIONS = 24;
/** Bounds of the group lists stored per conversation. */
export const MAX_STORED_GROUPS = 256;
export const MAX_GROUP_CHARS = 128;

/**
 * The group a tool belongs to: Claude Code / MCP naming `mcp__<server>__<tool>` → `mcp__<server>`;
 * a tool inside a Responses `namespace` → the namespace's name; anything else → its own name.
 */
export function toolGroup(name: string, namespace?: string): string {
  if (namespace !== undefined) return namespace;
  if (name.startsWith('mcp__')) {
    const end = name.indexOf('__', 5);
    if (end > 5) return name.slice(0, end);
  }
  return name;
}

/**
 * Whether a tool belongs to a server the agent attached (an MCP server's `mcp__<server>__<tool>`,
 * a Responses namespace) rather than to the agent itself. Only those are ever dropped: an agent's
 * own tool can be rare and still be the only way on (Claude Code's ExitPlanMode is called only
 * in plan mode, WebFetch only when a page is needed), and a conversation that finds it missing
 * cannot go on; a server the key's conversations never call is what the decision is for.
 */
export function isServerTool(name: string, namespace?: string): boolean {
  return namespace !== undefined || toolGroup(name) !== name;
}

/** What the key's finished conversations say about tool groups (src/store aggregates it). */
export interface ToolGroupHistory {
  /** Finished conversations that recorded the groups they offered. */
  conversations: number;
  /** Per group: in how many of them it was offered (at their first request). */
  offered: Readonly<Record<string, number>>;
  /** Groups called in any of the key's finished conversations. */
  called: readonly string[];
}

/** One finished conversation's record: groups offered at its first request (null: not recorded) and called. */
export interface ToolGroupRecord {
  offered: readonly string[] | null;
  called: readonly string[] | null;
}

export function aggregateToolGroups(records: readonly ToolGroupRecord[]): ToolGroupHistory {
  const offered: Record<string, number> = Object.create(null) as Record<string, number>;
  const called = new Set<string>();
  let conversations = 0;
  for (const r of records) {
    for (const g of r.called ?? []) called.add(g);
    if (!r.offered) continue;
    conversations++;
    for (const g of r.offered) offered[g] = (offered[g] ?? 0) + 1;
  }
  return { conversations, offered, called: [...called].sort() };
}

/** Groups the key's history shows unused: offered in ≥ 24 finished conversations, called in none. */
export function unusedToolGroups(history: ToolGroupHistory): string[] {
  const called = new Set(history.called);
  return Object.keys(history.offered)
    .filter((g) => (history.offered[g] ?? 0) >= MIN_OFFERED_CONVERSATIONS && !called.has(g))
    .sort();
}

/**
 * A group list as stored: sorted, names of at most 128 characters (longer ones are left out: a
 * group never recorded as offered is never dropped), at most 256 (those in `prefer` first).
 */
export function boundedGroups(groups: Iterable<string>, prefer?: ReadonlySet<string>): string[] {
  const fit = [...new Set(groups)].filter((g) => g.length > 0 && g.length <= MAX_GROUP_CHARS).sort();
  if (fit.length <= MAX_STORED_GROUPS) return fit;
  const first = prefer ? fit.filter((g) => prefer.has(g)) : [];
  const rest = prefer ? fit.filter((g) => !prefer.has(g)) : fit;
  return [...first, ...rest].slice(0, MAX_STORED_GROUPS).sort();
}

/** Groups of the definitions that may be dropped (plain function / custom tools). */
export function offeredGroups(conversation: Conversation): string[] {
  return boundedGroups(conversation.tools.filter((t) => t.droppable).map((t) => t.group));
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What `tool_choice` protects: every tool (`required` / `any`), or the tools it names. */
export function toolChoiceProtects(toolChoice: unknown): { all: boolean; names: Set<string> } {
  const names = new Set<string>();
  if (toolChoice === 'required' || toolChoice === 'any') return { all: true, names };
  if (!isObj(toolChoice)) return { all: false, names };
  const type = toolChoice.type;
  if (type === 'any' || type === 'required') return { all: true, names };
  const add = (choice: unknown) => {
    if (!isObj(choice)) return;
    // chat `{type:'function', function:{name}}`; Anthropic `{type:'tool', name}`; Responses `{type:'function'|'custom', name}`
    if (isObj(choice.function) && typeof choice.function.name === 'string') names.add(choice.function.name);
    if (typeof choice.name === 'string') names.add(choice.name);
  };
  if (type === 'allowed_tools') {
    // Responses `{type:'allowed_tools', mode, tools:[…]}` (chat nests it under `allowed_tools`).
    const nested = isObj(toolChoice.allowed_tools) ? toolChoice.allowed_tools : toolChoice;
    if (Array.isArray(nested.tools)) nested.tools.forEach(add);
    return { all: false, names };
  }
  add(toolChoice);
  return { all: false, names };
}

/**
 * Groups that must stay in this request whatever was decided: any group one of whose tools the
 * request's history calls, a tool `tool_choice` names (or every group when it requires a call),
 * and a tool carrying the client's `cache_control`.
 */
function protectedGroups(conversation: Conversation, toolChoice: unknown): { all: boolean; groups: Set<string> } {
  const choice = toolChoiceProtects(toolChoice);
  const groups = new Set(conversation.calledGroups);
  for (const t of conversation.tools) {
    if (conversation.calledNames.has(t.name) || choice.names.has(t.name) || t.raw.cache_control != null)
      groups.add(t.group);
  }
  return { all: choice.all, groups };
}

/**
 * The groups this request drops out of `decided` (a stored decision, or the candidates at the
 * first request): none that are protected, and none at all when the request would be left
 * without any tool.
 */
export function groupsToDrop(conversation: Conversation, toolChoice: unknown, decided: readonly string[]): string[] {
  if (decided.length === 0 || conversation.tools.length === 0) return [];
  const guard = protectedGroups(conversation, toolChoice);
  if (guard.all) return [];
  const wanted = new Set(decided.filter((g) => !guard.groups.has(g)));
  if (wanted.size === 0) return [];
  const dropped = conversation.tools.filter((t) => t.droppable && wanted.has(t.group));
  if (dropped.length === 0 || dropped.length >= conversation.toolCount) return [];
  return [...new Set(dropped.map((t) => t.group))].sort();
}

/** Marks the tools of `groups` dropped (the format writer leaves them out); returns whether any was. */
export function dropToolGroups(tools: readonly ToolDefinition[], groups: readonly string[]): boolean {
  if (groups.length === 0) return false;
  const set = new Set(groups);
  let any = false;
  for (const t of tools) {
    if (!t.droppable || !set.has(t.group)) continue;
    t.dropped = true;
    any = true;
  }
  return any;
}

/** The conversation's tool surface as its state keeps it (conversation-state.ts). */
export interface ToolSurfaceState {
  droppedToolGroups?: readonly string[];
  offeredToolGroups?: readonly string[];
  calledToolGroups?: readonly string[];
}

export interface ToolSurfaceOptions {
  /** Groups the key's finished conversations show unused; read only at a conversation's first request. */
  unusedToolGroups?: readonly string[];
  /** false (X-Gateway-Tool-Surface: off): this request drops nothing; a first request decides to drop nothing. */
  toolSurface?: boolean;
}

/**
 * Applies the conversation's tool surface to this request and returns it for the next one. The
 * decision is taken at the first request (state undefined, or no request counted yet): the
 * unused groups the request offers, minus those it must keep; a conversation stored before
 * decisions existed keeps every tool. Later requests drop exactly the stored groups (their
 * protections still apply: a request is never made invalid).
 */
export function applyToolSurface(
  conversation: Conversation,
  toolChoice: unknown,
  state: (ToolSurfaceState & { requests: number }) | undefined,
  options: ToolSurfaceOptions,
): Required<Pick<ToolSurfaceState, 'droppedToolGroups' | 'calledToolGroups'>> &
  Pick<ToolSurfaceState, 'offeredToolGroups'> {
  const first = !state || state.requests === 0;
  const on = options.toolSurface !== false;
  let decided = state?.droppedToolGroups;
  if (decided === undefined) {
    const unused = new Set(first && on ? options.unusedToolGroups : []);
    const offered = conversation.tools.filter((t) => t.droppable && unused.has(t.group)).map((t) => t.group);
    decided = groupsToDrop(conversation, toolChoice, [...new Set(offered)]);
  }
  if (on && decided.length > 0) dropToolGroups(conversation.tools, groupsToDrop(conversation, toolChoice, decided));
  const offered = state?.offeredToolGroups ?? (first ? offeredGroups(conversation) : undefined);
  const stored = state?.calledToolGroups;
  // Most requests call no group the conversation had not called before: the stored list is kept
  // as it is (every request of every conversation passes here; a new sorted copy each time showed
  // in the engine's profile).
  const called =
    stored && containsAll(stored, conversation.calledGroups)
      ? stored
      : boundedGroups([...(stored ?? []), ...conversation.calledGroups], offered ? new Set(offered) : undefined);
  return {
    droppedToolGroups: decided === state?.droppedToolGroups ? decided : boundedGroups(decided),
    calledToolGroups: called,
    ...(offered ? { offeredToolGroups: offered } : {}),
  };
}

function containsAll(list: readonly string[], names: ReadonlySet<string>): boolean {
  for (const name of names) if (!list.includes(name)) return false;
  return true;
}
