/**
 * What tracing needs of the configuration (the `OTEL_*` settings of `@entia/config`), and what it
 * makes of them. Pure: no OpenTelemetry import, so deciding that tracing is off costs nothing.
 */
/** The attribute of the API's request span holding its `X-Request-Id` (the request log's `reqId`). */
export const REQUEST_ID_ATTRIBUTE = 'entia.request_id';

export type SamplerName = 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio' | 'always_on' | 'always_off' | 'traceidratio';

export interface TracingConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: string;
  OTEL_SERVICE_NAME: string;
  OTEL_TRACES_SAMPLER: string;
  OTEL_TRACES_SAMPLER_ARG: number;
}

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  url: string;
  serviceName: string;
  sampler: SamplerName;
  /** The share of traces the `traceidratio` samplers keep. */
  ratio: number;
}

/**
 * The settings of a service's tracing, or undefined when no endpoint is configured: tracing is
 * opt-in, and off means nothing of OpenTelemetry is loaded. The traces endpoint is used as given
 * and the base endpoint gets `/v1/traces`, as the OTLP exporter specification says.
 */
export function tracingSettings(config: TracingConfig, defaultServiceName: string): TracingSettings | undefined {
  const url = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== 'none' ? config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT : tracesUrlOf(config.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (url === undefined) return undefined;
  return {
    url,
    serviceName: config.OTEL_SERVICE_NAME === 'none' ? defaultServiceName : config.OTEL_SERVICE_NAME,
    sampler: config.OTEL_TRACES_SAMPLER as SamplerName,
    ratio: config.OTEL_TRACES_SAMPLER_ARG,
  };
}

function tracesUrlOf(base: string): string | undefined {
  if (base === 'none') return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}
