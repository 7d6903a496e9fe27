import { commandKind } from '@entia/store';

/**
 * The pure half of the cost per request (bench/load/costs.ts reads the sources): counts read from
 * a Prometheus scrape, from Redis's `INFO commandstats` and from `/proc/<pid>/stat`, their
 * differences, and the database commands classified by name.
 */
export type Counts = Record<string, number>;

const unescapeLabel = (value: string) => value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

/** The samples of counter `metric` in Prometheus text, by the value of `label` (summed over other labels). */
export function counterValues(text: string, metric: string, label: string): Counts {
  const counts: Counts = {};
  const labelPattern = new RegExp(`(?:^|,)${label}="((?:[^"\\\\]|\\\\.)*)"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const close = line.lastIndexOf('}');
    const value = Number(line.slice(close + 1).trim().split(/\s+/)[0]);
    const name = labelPattern.exec(line.slice(metric.length + 1, close))?.[1];
    if (name === undefined || !Number.isFinite(value)) continue;
    const key = unescapeLabel(name);
    counts[key] = (counts[key] ?? 0) + value;
  }
  return counts;
}

/** The value of unlabelled metric `metric` in Prometheus text (NaN when absent). */
export function sampleValue(text: string, metric: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${metric} `));
  return line === undefined ? NaN : Number(line.slice(metric.length + 1).trim().split(/\s+/)[0]);
}

/** Whether the worker's scrape shows nothing left to do: no job waiting or running, no pending mark. */
export function workerIdle(text: string): boolean {
  const jobs = counterValues(text, 'entia_queue_jobs', 'state');
  return ['waiting', 'active', 'delayed', 'prioritized'].every((state) => !jobs[state]) && sampleValue(text, 'entia_derived_pending_marks') === 0;
}

/** Calls per command from `INFO commandstats` (`cmdstat_get:calls=12,usec=…`). */
export function commandstats(info: string): Counts {
  const counts: Counts = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

/** User plus system CPU time of a process, in clock ticks, from the text of `/proc/<pid>/stat`. */
export function cpuTicks(stat: string): number {
  // Fields after the command name (which may hold spaces and parentheses): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** `after − before` per key, keys that did not grow left out; `minus` (e.g. what a scrape itself costs) taken off, never below 0. */
export function difference(before: Counts, after: Counts, minus: Counts = {}): Counts {
  const grown: Counts = {};
  for (const [key, value] of Object.entries(after)) {
    const delta = value - (before[key] ?? 0) - (minus[key] ?? 0);
    if (delta > 0) grown[key] = delta;
  }
  return grown;
}

export const total = (counts: Counts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

const round = (n: number) => Math.round(n * 100) / 100;

/** Database commands per request: all of them, reads and writes, by name (those under 0.005 left out of `byCommand`). Probes (`hello`, `ping`) are no request's work: left out. */
export interface DbCost {
  total: number;
  reads: number;
  writes: number;
  byCommand: Counts;
}

export function dbCost(commands: Counts, requests: number): DbCost {
  const cost: DbCost = { total: 0, reads: 0, writes: 0, byCommand: {} };
  for (const [name, count] of Object.entries(commands).sort(([, a], [, b]) => b - a)) {
    const kind = commandKind(name);
    if (kind === 'probe') continue;
    cost.total += count;
    if (kind === 'read') cost.reads += count;
    if (kind === 'write') cost.writes += count;
    if (round(count / requests) > 0) cost.byCommand[name] = round(count / requests);
  }
  return { ...cost, total: round(cost.total / requests), reads: round(cost.reads / requests), writes: round(cost.writes / requests) };
}

/** Calls per request, `INFO` itself (the benchmark's own, once per scenario) left out. */
export function redisCost(calls: Counts, requests: number): { total: number; byCommand: Counts } {
  const counted = Object.entries(calls).filter(([name]) => name !== 'info');
  return {
    total: round(counted.reduce((sum, [, n]) => sum + n, 0) / requests),
    byCommand: Object.fromEntries(counted.sort(([, a], [, b]) => b - a).map(([name, n]) => [name, round(n / requests)])),
  };
}
