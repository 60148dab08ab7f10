import type { IncomingHttpHeaders } from 'node:http';

/** Token counts in the gateway's own terms; each mock writes them in its provider's format. */
export interface MockUsage {
  inputTokens: number; // all prompt tokens, cached included
  outputTokens: number; // all completion tokens, reasoning included
  cachedInputTokens: number;
  cacheCreationInputTokens: number; // Anthropic only
  reasoningTokens: number; // OpenAI and Gemini only
}

export interface MockToolCall {
  id?: string; // default call_mock_<n> / toolu_mock_<n>
  name: string;
  arguments?: Record<string, unknown>; // default {}
  /** Responses API: a `custom_tool_call` with this free-form input instead of a function call. */
  input?: string;
  /** Responses API: the namespace the called tool was declared in. */
  namespace?: string;
}

/** What the next request gets. Every field is optional; `{}` is a plain successful answer. */
export interface MockScenario {
  text?: string; // reply text, default "Hello from the mock."
  textChunks?: string[]; // exact stream pieces (default: text split after spaces)
  toolCalls?: MockToolCall[];
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter'; // default stop / tool_calls
  usage?: Partial<MockUsage>;
  model?: string; // model echoed in the response (default: the requested one)
  thinking?: { thinking: string; signature: string }; // Anthropic: a thinking block before the text
  stopSequence?: string; // Anthropic: stop_reason "stop_sequence" naming this sequence
  responseId?: string; // Responses: the response's id (default resp_mock)

  status?: number; // >= 400 answers with the provider's error envelope
  errorMessage?: string; // message inside that envelope
  errorBody?: unknown; // exact error body instead (string sent verbatim)
  headers?: Record<string, string>; // extra response headers, e.g. {'retry-after': '2'}

  hangBeforeHeadersMs?: number; // wait before the status line; Infinity never answers
  chunkDelayMs?: number; // pause between SSE events (default: one macrotask)
  hangAfterEvent?: number; // index of the SSE event after which to hang (default 1)
  hangBetweenChunksMs?: number; // how long to hang there; Infinity never continues
  closeMidStream?: boolean; // destroy the socket halfway through the events
  malformedSse?: boolean; // an event whose data is not JSON, after the first event
  crlf?: boolean; // CRLF line endings
  multiLineData?: boolean; // pretty-printed JSON: each event spans several data: lines
  splitUtf8?: boolean; // each event written in pieces cut inside multi-byte characters
  omitDone?: boolean; // OpenAI: no final "data: [DONE]"
}

export type ScenarioSource = MockScenario | MockScenario[] | ((request: RecordedRequest) => MockScenario);

export interface RecordedRequest {
  method: string;
  path: string; // path and query, e.g. /v1/chat/completions
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any; // parsed JSON, or undefined when the body is not JSON
  receivedAt: number; // performance.now() of this process
  socketClosedAt?: number; // performance.now() when the request's socket closed
  responseEndedAt?: number;
  /** Resolves with socketClosedAt once the socket closes. */
  closed: Promise<number>;
}

export interface MockUpstream {
  url: string; // http://127.0.0.1:<port>
  baseUrl: string; // what an UpstreamTarget needs, e.g. http://127.0.0.1:<port>/v1
  requests: RecordedRequest[];
  /** One scenario for every request, a list consumed in order (the last repeats), or a function. */
  setScenario(source: ScenarioSource): void;
  lastRequest(): RecordedRequest | undefined;
  reset(): void; // forget requests, back to the default scenario
  close(): Promise<void>;
}

export interface MockOptions {
  apiKey?: string; // when set, any other key gets the provider's auth error
  port?: number; // default 0 (ephemeral)
}

/** A provider's wire format, as the mock speaks it. */
export interface MockWireFormat {
  name: string;
  basePath: string;
  /** Requests to any other path get a 404, so a wrong URL fails loudly. */
  acceptsPath(path: string): boolean;
  isStream(request: RecordedRequest): boolean;
  apiKeyOf(request: RecordedRequest): string | undefined;
  authError(): { status: number; body: unknown };
  errorBody(status: number, message: string): unknown;
  json(scenario: MockScenario, request: RecordedRequest): unknown;
  /** SSE events; `event` becomes an `event:` line. */
  streamEvents(scenario: MockScenario, request: RecordedRequest): Array<{ event?: string; data: unknown }>;
}
