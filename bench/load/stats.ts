import { percentile } from '../measure';
import type { RequestCosts } from './costs';

/** What one scenario measured: throughput, latency percentiles (ms) and failures. */
export interface Throughput {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Transport errors, timeouts and responses with an unexpected status. */
  errors: number;
  /** Status code → count, for the report. */
  statuses: Record<string, number>;
  /** HTTP only: mean bytes per response, status line and headers included. */
  bytesPerResponse?: number;
  /** Through the API only: commands and CPU time per request. */
  costs?: RequestCosts;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export function summarise(latencies: number[], seconds: number, errors: number, statuses: Record<string, number>): Throughput {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    seconds: round(seconds),
    perSecond: round(sorted.length / seconds, 1),
    p50: round(percentile(sorted, 0.5)),
    p95: round(percentile(sorted, 0.95)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
    errors,
    statuses,
  };
}
