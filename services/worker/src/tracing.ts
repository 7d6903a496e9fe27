/**
 * Tracing, started before anything it traces is loaded: main.ts imports this module
 * first, and CommonJS runs imports in order, so ioredis, mongodb, bullmq and http are required
 * after the instrumentations are in place. Without OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT nothing
 * of OpenTelemetry is loaded. A bad setting stops the process here, with main's one line.
 */
import { loadConfigOrExit } from '@entia/config';
import { startTracing } from '@entia/telemetry';

startTracing(loadConfigOrExit('entia-worker'), 'entia-worker');
