import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

/**
 * undici's Agent and its promise `request`, loaded without the package's entry, which also loads
 * fetch, WebSocket, EventSource, the cache and the mock agent (~880 KB of source, ~3 MB of heap)
 * that the console's and collector's outbound calls never use.
 */
export const UndiciAgent = require('undici/lib/dispatcher/agent.js') as typeof Agent;

const dispatchRequest = require('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

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
  return dispatchRequest.call(dispatcher, {
    ...options,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: options.method ?? (options.body ? 'PUT' : 'GET'),
  });
}
