import type { GateState, SchemaGate } from '@entia/entities';
import type { RequestHandler } from 'express';
import { Gauge, type Registry } from 'prom-client';
import { problems, sendProblem } from './problem';

// The probes answer for themselves (/readyz names the reason); the description needs no schema.
const UNGATED = new Set(['/healthz', '/readyz', '/api/openapi.json']);

/**
 * While the stored schema is older than this code's (or not read yet), every route answers 503
 * with Retry-After and the reason, instead of running against documents it does not expect
 * (docs/deployment.md, "Upgrading (migrations)").
 */
export function schemaGuard(gate: SchemaGate): RequestHandler {
  return (req, res, next) => {
    const reason = gate.reason;
    if (reason === undefined || UNGATED.has(req.path)) return next();
    sendProblem(res, problems.unavailable(reason));
  };
}

/**
 * `entia_schema_behind`: 1 while the stored schema is older than this process needs (it serves
 * nothing: alert on it), 0 once serving, NaN until read. `entia_schema_version{of}`: the stored
 * version (`of="stored"`; NaN until read or for a fresh installation) and this code's (`of="code"`).
 */
export function schemaMetrics(registry: Registry): (state: GateState) => void {
  const behind = new Gauge({ name: 'entia_schema_behind', help: 'Whether the stored schema is older than this process needs (1: it serves nothing until `entia-admin migrate`); NaN until read.', registers: [registry] });
  const version = new Gauge({ name: 'entia_schema_version', help: 'Schema versions: `of="stored"` in the control database, `of="code"` the one this process needs.', labelNames: ['of'], registers: [registry] });
  behind.set(NaN);
  return (state) => {
    behind.set(state.kind === 'behind' ? 1 : state.kind === 'serving' ? 0 : NaN);
    if (state.kind !== 'unknown') {
      version.set({ of: 'code' }, state.needed);
      version.set({ of: 'stored' }, state.stored ?? NaN);
    }
  };
}
