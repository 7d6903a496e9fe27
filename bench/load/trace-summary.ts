import type { TracedCommand } from './command-trace';

/** Commands of one kind sent from one place, per request of the scenario. */
export interface TraceRow {
  service: string;
  command: string;
  collection: string;
  fields: string;
  perRequest: number;
  /** The innermost frame (where the driver was called) and the use case above it. */
  sentFrom: string;
}

export interface ScenarioTrace {
  id: string;
  requests: number;
  rows: TraceRow[];
}

// The store's own files say how a command was sent; the first frame outside them says why.
const STORE = 'libs/store/src/';

/** Where a command came from: its innermost frame and, when that is the store's, the first frame outside it. */
export function siteOf(frames: readonly string[]): string {
  if (frames.length === 0) return '(no frame of this repository)';
  const [inner] = frames;
  const caller = frames.find((frame) => !frame.includes(STORE));
  return caller && caller !== inner ? `${inner} ← ${caller}` : inner!;
}

/**
 * The commands each service sent within `[from, to]`, grouped by command, collection, filter
 * fields and site, over `requests`; most frequent first.
 */
export function summariseTrace(
  traces: ReadonlyMap<string, readonly TracedCommand[]>,
  span: { from: number; to: number },
  requests: number,
): TraceRow[] {
  const rows = new Map<string, TraceRow & { n: number }>();
  for (const [service, commands] of traces) {
    for (const traced of commands) {
      if (traced.at < span.from || traced.at > span.to) continue;
      const row = {
        service,
        command: traced.command,
        collection: traced.collection ?? '',
        fields: (traced.fields ?? []).join(', '),
        sentFrom: siteOf(traced.frames),
      };
      const key = JSON.stringify(row);
      const seen = rows.get(key) ?? { ...row, perRequest: 0, n: 0 };
      seen.n++;
      rows.set(key, seen);
    }
  }
  const per = Math.max(requests, 1);
  return [...rows.values()]
    .map(({ n, ...row }) => ({ ...row, perRequest: Math.round((n / per) * 100) / 100 }))
    .sort((a, b) => a.service.localeCompare(b.service) || b.perRequest - a.perRequest);
}

/** One line per traced command, as `command-trace.ts` appends them. */
export function parseTrace(text: string): TracedCommand[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TracedCommand);
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderTraceMarkdown(traces: readonly ScenarioTrace[]): string {
  const lines = [
    '## Command trace',
    '',
    'Every MongoDB command the services sent while each scenario was metered (`--trace`: each command with the frames of this ' +
      "repository's code that sent it, source-mapped; filter field names only, never values), per request answered. The worker's rows " +
      "include its `/metrics` scrapes by the meter (`PendingMarks`' count and oldest mark).",
    '',
  ];
  for (const trace of traces) {
    if (trace.rows.length === 0) continue;
    lines.push(`### ${trace.id} (${trace.requests} requests)`, '', '| service | command | collection | filter fields | per request | sent from |', '|---|---|---|---|---:|---|');
    for (const row of trace.rows) {
      lines.push(`| ${row.service} | ${row.command} | ${row.collection} | ${cell(row.fields)} | ${row.perRequest} | ${cell(row.sentFrom)} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
