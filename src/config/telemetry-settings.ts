/**
 * OpenTelemetry tracing, configured by the SDK's standard environment variables so that any
 * collector setup that works for other services works here unchanged. Off unless an OTLP
 * endpoint is set; `OTEL_SDK_DISABLED=true` turns it off even then.
 */
export interface TelemetrySettings {
  /** OTLP/HTTP traces URL; undefined: tracing off (nothing is loaded, nothing is recorded). */
  tracesEndpoint: string | undefined;
  /** Extra headers for the exporter (`OTEL_EXPORTER_OTLP_HEADERS`, `key=value,key2=value2`). */
  headers: Record<string, string>;
  serviceName: string;
}

export function readTelemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings {
  const disabled = /^(true|1)$/i.test(env.OTEL_SDK_DISABLED ?? '');
  const explicit = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  // Per the OTLP exporter spec: the signal-specific variable is used as is, the generic one gets `/v1/traces`.
  const tracesEndpoint = explicit ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  return {
    tracesEndpoint: disabled ? undefined : tracesEndpoint,
    headers: parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS || env.OTEL_EXPORTER_OTLP_HEADERS || ''),
    serviceName: env.OTEL_SERVICE_NAME || 'llm-gateway',
  };
}

function parseHeaders(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}
