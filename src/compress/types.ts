import type { BundleName } from './bundles.js';

export type RequestFormat = 'chat' | 'messages' | 'responses';

export type { ToolKind } from './tool-kind.js';

export interface ToolCallInfo {
  id: string;
  name: string;
  /** Parsed arguments; null when they are not a JSON object. */
  args: Record<string, unknown> | null;
  /** Index of the message (or responses item) holding the call, when its format can write new arguments back. */
  argsItem?: number;
  /** Arguments a history rewrite put in place of `args` (strategies/superseded-inputs.ts). */
  rewrittenArgs?: Record<string, unknown>;
}

/**
 * One tool result, the only kind of conversation content strategies may rewrite.
 * `text` is the working copy; the format writer puts it back in place of the original.
 */
export interface ToolResult {
  callId: string;
  call: ToolCallInfo | undefined;
  /** Index of the assistant turn that issued the call (turns with tool calls only). */
  turn: number;
  /** Index of the message (or responses item) that holds the result. */
  item: number;
  original: string;
  text: string;
  /** False when the result holds non-text parts (images…): it is then left as is. */
  editable: boolean;
  isError: boolean;
  /** Strategy that last replaced `text`, for the report. */
  changedBy: Set<string>;
  /** What the agent wrapped the output in (Codex), put back around `text` when it is sent. */
  envelope?: OutputEnvelope;
}

/** An output's wrapping (formats/output-envelope.ts): its own bytes before and after the output. */
export interface OutputEnvelope {
  prefix: string;
  suffix: string;
  /** The output sits in the envelope as a JSON string literal. */
  json: boolean;
  /** The output itself, decoded. */
  output: string;
  /** The prefix as received, when `prefix` is a shorter header (a finished run's details dropped). */
  receivedPrefix?: string;
}

/** Tool definition in neutral form; `raw` keeps the original object for the writer. */
export interface ToolDefinition {
  name: string;
  description: string | undefined;
  parameters: unknown;
  raw: Record<string, unknown>;
  changed: boolean;
  /** Its group for the tool-surface decision (tool-surface.ts `toolGroup`). */
  group: string;
  /** A plain function / custom definition: the tool-surface decision may drop it (never a built-in). */
  droppable: boolean;
  /** Left out of the written request by the conversation's tool-surface decision. */
  dropped: boolean;
}

/** Neutral view of a request: enough for every strategy, written back per format. */
export interface Conversation {
  format: RequestFormat;
  systemText: string;
  results: ToolResult[];
  tools: ToolDefinition[];
  /** Number of assistant turns that issued tool calls. */
  turnCount: number;
  /**
   * Index of the last assistant message (responses: assistant message or function call), -1 when
   * none: what comes before it was in the previous request of the conversation, what comes
   * after it is new.
   */
  lastAssistantItem: number;
  /** Names of the tools the request's history calls, and their groups (tool-surface.ts). */
  calledNames: Set<string>;
  calledGroups: Set<string>;
  /** Every tool definition of the request, built-in ones included (`tools` holds the plain ones only). */
  toolCount: number;
}

export interface CompressionReport {
  technique: 'auto' | 'tool';
  applied_strategies: string[];
  compression_rate: number;
  uncompressed_input_tokens: number;
  compressed_input_tokens: number;
  compression_time_ms: number;
}

export interface CompressOptions {
  bundle?: BundleName;
}

export interface CompressResult {
  body: Record<string, unknown>;
  compression: CompressionReport;
  /** Where the time went: conversion + strategies, and token counting + the per-result gate. */
  timings: { engine_ms: number; accounting_ms: number };
}
