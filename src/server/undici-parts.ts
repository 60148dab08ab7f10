import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

/**
 * undici's Agent and its promise `request`, loaded without the package's entry, which also loads
 * fetch, WebSocket, EventSource, the cache and the mock agent (~880 KB of source, ~3 MB of heap)
 * that the console's and collector's outbound calls never use. Both are loaded on first use: an
 * idle process that has sent no webhook and checked no domain holds none of undici's modules.
 */
let agentClass: typeof Agent | undefined;
export function undiciAgent(): typeof Agent {
  return (agentClass ??= require('undici/lib/dispatcher/agent.js') as typeof Agent);
}

type DispatchRequest = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
let dispatchRequest: DispatchRequest | undefined;

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & {
  method?: Dispatcher.HttpMethod;
};

/** `undici.request(url, { dispatcher, ... })` for an absolute URL, through `dispatcher`. */
export function requestThrough(
  dispatcher: Dispatcher,
  url: string | URL,
  options: RequestOptions,
): Promise<Dispatcher.ResponseData> {
  const parsed = new URL(url);
  dispatchRequest ??= require('undici/lib/api/api-request.js') as DispatchRequest;
  return dispatchRequest.call(dispatcher, {
    ...options,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: options.method ?? (options.body ? 'PUT' : 'GET'),
  });
}
