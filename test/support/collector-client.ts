import { Agent, request } from 'undici';

/**
 * Calls the collector listener with an arbitrary Host header (the project's domain). The TLS
 * chain is still verified against the gateway's CA; only the name check is skipped, because the
 * test certificate names localhost while the Host header names the project's domain.
 */
export function collectorClient(
  baseUrl: string,
  ca: string,
  options: { localAddress?: string; connections?: number } = {},
) {
  const dispatcher = new Agent({
    connect: { ca, checkServerIdentity: () => undefined },
    // Another loopback source address (127.0.0.2, …): the collector sees another client.
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    keepAliveTimeout: 2_000,
    // 1: every request on one keep-alive connection, like a proxy's pooled connection.
    connections: options.connections ?? 64,
  });
  async function call(
    method: string,
    host: string,
    init: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { host, ...(init.headers ?? {}) };
    let body = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await request(`${baseUrl}/_gateway/event`, {
      method: method as 'POST',
      headers,
      body,
      dispatcher,
    });
    const text = await response.body.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers: response.headers, text, json };
  }
  return { call, close: () => dispatcher.close() };
}
