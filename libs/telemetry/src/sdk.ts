/**
 * The OpenTelemetry SDK, wired for Entia. Only `startTracing` (index.ts) loads this file, and only
 * when an endpoint is configured: its imports register nothing, but loading them is what tracing
 * costs, so a service without tracing never does.
 */
import { DiagLogLevel, SpanKind, TraceFlags, diag, trace, type Attributes, type Context, type Link } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { detectResources, envDetector, hostDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import type { ServerResponse } from 'node:http';
import { commandShape, scrubbedAttributes, withoutCredentials } from './scrub';
import { REQUEST_ID_ATTRIBUTE, type SamplerName, type TracingSettings } from './settings';

export interface StartedTracing {
  /** For BullMQ's `telemetry` option: a job's producer span travels with it to its processor. */
  queueTelemetry: Telemetry;
  /** Exports what is buffered and stops; for a graceful shutdown. */
  shutdown(): Promise<void>;
}

export function startSdk(settings: TracingSettings): StartedTracing {
  reportOwnFailures();
  const provider = new NodeTracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES (e.g. deployment.environment.name) and host.name (the pod's name on
    // Kubernetes) beside the service's name, which our configuration decides.
    resource: detectResources({ detectors: [envDetector, hostDetector] }).merge(resourceFromAttributes({ 'service.name': settings.serviceName })),
    sampler: new RequestsAndJobs(samplerOf(settings.sampler, settings.ratio)),
    spanProcessors: [new Scrubber(), new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url }))],
  });
  // The AsyncLocalStorage context manager and the W3C traceparent propagator (BullMQ's job
  // metadata uses it too).
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes every few seconds per pod would be most of the traces, and say nothing.
        ignoreIncomingRequestHook: (req) => isProbeOrScrape(req.url),
        // S3 or webhook calls made outside a request or a job (the bucket check at start) start no trace.
        requireParentforOutgoingSpans: true,
        applyCustomAttributesOnSpan: (span, _request, response) => {
          const id = (response as ServerResponse).getHeader?.('x-request-id');
          if (typeof id === 'string') span.setAttribute(REQUEST_ID_ATTRIBUTE, id);
        },
      }),
      // For the route only (`http.route`, and the request span's name `GET /api/:db/entity/:id`),
      // which it records whether a layer is a span or not: a span per middleware (helmet, CORS, body
      // parser…) or for the handler, as long as the request's own span, costs more than it tells.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER, ExpressLayerType.REQUEST_HANDLER] }),
      // The command name alone: arguments hold keys (lease tokens, key hashes) and values.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new MongoDBInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, dbStatementSerializer: (command) => commandShape(command) }),
    ],
  });
  return {
    queueTelemetry: new BullMQOtel({ tracerName: 'bullmq' }),
    shutdown: () => provider.shutdown(),
  };
}

function isProbeOrScrape(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0];
  return path === '/healthz' || path === '/readyz' || path === '/metrics';
}

function samplerOf(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/**
 * A trace starts with a request (a server span) or a job (a consumer span); any other root —
 * BullMQ's own polling (`getNextJob`, stalled-job checks, every few seconds) — is dropped before
 * the configured sampler is asked, or it would be most of what is exported. So are the spans under
 * a dropped one in this process (a local parent not sampled): the non-parent-based samplers
 * (`always_on`) would otherwise keep them, as orphans of a trace that does not exist.
 */
class RequestsAndJobs implements Sampler {
  constructor(private readonly inner: Sampler) {}

  shouldSample(context: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const parent = trace.getSpanContext(context);
    if (parent === undefined && kind !== SpanKind.SERVER && kind !== SpanKind.CONSUMER) return { decision: SamplingDecision.NOT_RECORD };
    if (parent !== undefined && !parent.isRemote && (parent.traceFlags & TraceFlags.SAMPLED) === 0) return { decision: SamplingDecision.NOT_RECORD };
    return this.inner.shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `RequestsAndJobs{${this.inner.toString()}}`;
  }
}

/** Applies the scrubbing rules (scrub.ts) to every span as it ends, before any exporter sees it. */
class Scrubber implements SpanProcessor {
  onStart(): void {}

  onEnding(span: Span): void {
    const changes = scrubbedAttributes(span.kind, span.attributes);
    for (const [key, value] of Object.entries(changes)) if (value !== undefined) span.setAttribute(key, value);
    for (const event of span.events) {
      if (!event.attributes) continue;
      const eventChanges = scrubbedAttributes(span.kind, event.attributes);
      Object.assign(event.attributes, eventChanges);
    }
    // An error's message, as the instrumentations copy it into the status.
    const message = span.status.message;
    if (message !== undefined && withoutCredentials(message) !== message) span.setStatus({ code: span.status.code, message: withoutCredentials(message) });
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * OpenTelemetry reports its own failures (a collector that cannot be reached, a refused batch)
 * through `diag`, silent by default: here they are one JSON line on stderr at pino's warn level,
 * as the services log.
 */
function reportOwnFailures(): void {
  const line = (level: number) => (message: string) => process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg: `tracing: ${message}` })}\n`);
  const ignore = () => {};
  diag.setLogger({ error: line(50), warn: line(40), info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN);
}
