import type { TelemetrySettings } from '../config/telemetry-settings.js';
import type { RequestTraceData } from './request-trace.js';
import { attemptAttributes, attemptSpanName, requestAttributes, requestSpanName } from './genai-attributes.js';

/**
 * Request traces. Callers check `enabled` before building a `RequestTraceData`, so with tracing
 * off a request allocates nothing for it and the OpenTelemetry SDK is never loaded.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Records one finished request: its span and a child span per upstream attempt. Never throws. */
  record(data: RequestTraceData): void;
  /** Exports what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export const NO_TRACING: Tracing = {
  enabled: false,
  record: () => {},
  flush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

export interface TracingLogger {
  warn(object: Record<string, unknown>, message: string): void;
}

/**
 * Spans are written after the fact, with the request's and each attempt's real start and end
 * times, from the data the request was metered with: the hot path carries no span objects and
 * the trace cannot disagree with the usage row.
 */
export async function createTracing(settings: TelemetrySettings, logger: TracingLogger): Promise<Tracing> {
  if (!settings.tracesEndpoint) return NO_TRACING;
  const [api, core, sdk, exporterModule, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const exporter = new exporterModule.OTLPTraceExporter({ url: settings.tracesEndpoint, headers: settings.headers });
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer('llm-gateway');
  const propagator = new core.W3CTraceContextPropagator();

  function parentContext(traceparent: string | undefined) {
    if (!traceparent) return api.ROOT_CONTEXT;
    return propagator.extract(api.ROOT_CONTEXT, { traceparent }, api.defaultTextMapGetter);
  }

  return {
    enabled: true,
    record(data) {
      try {
        const root = tracer.startSpan(
          requestSpanName(data),
          { kind: api.SpanKind.SERVER, startTime: data.startedAt, attributes: requestAttributes(data) },
          parentContext(data.traceparent),
        );
        if (data.status >= 500)
          root.setStatus({ code: api.SpanStatusCode.ERROR, message: data.errorCode ?? undefined });
        const withRoot = api.trace.setSpan(api.ROOT_CONTEXT, root);
        data.attempts.forEach((attempt, index) => {
          const child = tracer.startSpan(
            attemptSpanName(attempt),
            {
              kind: api.SpanKind.CLIENT,
              startTime: attempt.startedAt,
              attributes: attemptAttributes(data.attempts, index),
            },
            withRoot,
          );
          if (attempt.status !== 200) child.setStatus({ code: api.SpanStatusCode.ERROR, message: attempt.error });
          child.end(attempt.startedAt + attempt.durationMs);
        });
        root.end(data.endedAt);
      } catch (error) {
        logger.warn(
          { error: error instanceof Error ? error.message : String(error) },
          'a request trace could not be recorded',
        );
      }
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
