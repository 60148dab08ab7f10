import { createServer, type Server } from 'node:http';

/** What an OTLP/HTTP JSON export carries, reduced to what the tests read. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status: { code?: number; message?: string } | undefined;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** Base URL to set as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Resolves once at least `count` spans have arrived (rejects after `timeoutMs`). */
  waitForSpans(count: number, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

/** A real OTLP/HTTP receiver on loopback, accepting the JSON encoding the exporter sends. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: {
            resource?: { attributes?: { key: string; value: AnyValue }[] };
            scopeSpans?: { spans?: Record<string, unknown>[] }[];
          }[];
        };
        for (const resourceSpan of body.resourceSpans ?? []) {
          const resource = attributesOf(resourceSpan.resource?.attributes);
          for (const scope of resourceSpan.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                traceId: span.traceId as string,
                spanId: span.spanId as string,
                parentSpanId: (span.parentSpanId as string | undefined) || undefined,
                name: span.name as string,
                kind: span.kind as number,
                startTimeUnixNano: String(span.startTimeUnixNano),
                endTimeUnixNano: String(span.endTimeUnixNano),
                status: span.status as ReceivedSpan['status'],
                attributes: attributesOf(span.attributes as { key: string; value: AnyValue }[]),
                resource,
              });
            }
          }
        }
        for (const wake of waiters.splice(0)) wake();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    async waitForSpans(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (spans.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} spans, received ${spans.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
