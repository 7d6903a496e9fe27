import type { Machine } from '../results';
import type { World } from '../seed';
import type { CascadeResult } from './cascade';
import type { LoadOptions } from './options';
import type { Throughput } from './stats';
import type { ProcessUsage } from './usage';

export interface ScenarioResult extends Throughput {
  id: string;
  title: string;
  ceiling?: string;
  /** This scenario's req/s over its ceiling's. */
  ratio?: number;
  api: ProcessUsage;
  worker: ProcessUsage;
}

export interface Target {
  goal: string;
  measured: string;
  met: boolean;
}

export interface LoadResult {
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  options: LoadOptions;
  world: Pick<World, 'db' | 'size' | 'counts' | 'sharing'>;
  seeding?: { totalMs: number };
  /** The first write after the API started: it loads the definitions into the schema cache. */
  firstWriteMs: number;
  scenarios: ScenarioResult[];
  /** Absent when `--only` left it out. */
  cascade?: CascadeResult & { api: ProcessUsage; worker: ProcessUsage };
  targets: Target[];
}

const pct = (n: number) => `${Math.round(n * 100)} %`;

export function targetsOf(scenarios: ScenarioResult[]): Target[] {
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const ratio = (id: string) => byId.get(id)?.ratio ?? NaN;
  const lists = scenarios.filter((s) => /^[LQ]\d$/.test(s.id));
  const worstTail = lists.map((s) => ({ id: s.id, factor: s.p99 / s.p50 })).sort((a, b) => b.factor - a.factor)[0];
  const rss = Math.max(...scenarios.map((s) => s.api.maxRssMiB));
  const errors = scenarios.reduce((sum, s) => sum + s.errors, 0);
  return [
    { goal: 'cached GET entity ≥ 50 % of the bare-HTTP ceiling', measured: pct(ratio('get-cached')), met: ratio('get-cached') >= 0.5 },
    { goal: 'uncached GET entity ≥ 70 % of the driver ceiling', measured: pct(ratio('get-cold')), met: ratio('get-cold') >= 0.7 },
    { goal: "creates ≥ 60 % of the driver's insert ceiling", measured: pct(ratio('create')), met: ratio('create') >= 0.6 },
    {
      goal: 'p99 of every list query ≤ 10× its p50',
      measured: worstTail ? `worst ${worstTail.id}: ${worstTail.factor.toFixed(1)}×` : 'no list query ran',
      met: lists.length > 0 && lists.every((s) => s.requests > 0 && s.p99 <= 10 * s.p50),
    },
    { goal: 'API RSS ≤ 256 MiB under load', measured: `${rss} MiB`, met: rss <= 256 },
    { goal: 'zero errors', measured: `${errors}`, met: errors === 0 },
  ];
}

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 0) : '–');

function cascadeLine(cascade: NonNullable<LoadResult['cascade']>): string {
  return (
    `Formula cascade: ${cascade.children} children created under one parent (\`_child.row.amount SUM\`, \`_child.row._id COUNT\`) at ` +
    `${cascade.burst.perSecond} req/s (p50 ${ms(cascade.burst.p50)} ms, p99 ${ms(cascade.burst.p99)} ms, ${cascade.burst.errors} errors); ` +
    `the parent showed the right sum and count ${cascade.settleMs} ms after the last write was acknowledged ` +
    `(${cascade.totalMs} ms after the first), rewritten ${cascade.parentWrites} times in all; worker CPU ${cascade.worker.meanCpu} % on average.`
  );
}

export function renderLoadMarkdown(result: LoadResult): string {
  const { machine: m, options: o } = result;
  const lines = [
    `# Load benchmark — ${result.startedAt}`,
    '',
    `Machine: ${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB (${m.freeMemoryGiB} free), ${m.os}, Node ${m.node}; engine ${m.engine}; ` +
      `load average ${m.loadAverage.start.join(' / ')} at the start, ${(m.loadAverage.end ?? []).join(' / ')} at the end. ` +
      'The load generator, the API, the worker and the database share this machine.',
    '',
    `Data: ${result.world.size} entities (${Object.entries(result.world.counts).map(([k, v]) => `${v} ${k}s`).join(', ')})` +
      (result.seeding ? `, seeded in ${(result.seeding.totalMs / 1000).toFixed(0)} s` : ', reused') +
      `. ${o.connections} connections; timed scenarios ${o.duration} s each; list and q queries ${o.listRequests} requests each (a different \`skip\` per request: no cache hits), signed-URL GETs max(${o.listRequests}, 5 × connections).`,
    '',
    `The API's first write took ${result.firstWriteMs} ms (it loads the definitions into the schema cache; later writes find them there).`,
    '',
    '| scenario | what | req/s | p50 ms | p95 ms | p99 ms | errors | vs ceiling | API RSS max | API CPU | worker CPU |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...result.scenarios.map(
      (s) =>
        `| ${s.id} | ${s.title} | ${s.perSecond} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${s.errors}${s.errors ? ` (${Object.entries(s.statuses).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''} | ` +
        `${s.ratio === undefined ? '' : `${pct(s.ratio)} of ${s.ceiling}`} | ${s.api.maxRssMiB} MiB | ${s.api.meanCpu} % | ${s.worker.meanCpu} % |`,
    ),
    ...(result.cascade ? ['', cascadeLine(result.cascade)] : []),
    ...(result.options.only ? ['', `A partial run: only ${result.options.only.join(', ')}.`] : []),
    '',
    '## Targets',
    '',
    '| goal | measured | met |',
    '|---|---|---|',
    ...result.targets.map((t) => `| ${t.goal} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
    '',
  ];
  return lines.join('\n');
}
