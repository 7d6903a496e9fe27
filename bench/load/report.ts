import type { Machine } from '../results';
import type { World } from '../seed';
import type { CascadeResult } from './cascade';
import type { RequestCosts } from './costs';
import type { DbCost } from './counts';
import type { LoadOptions } from './options';
import type { Throughput } from './stats';
import { renderTraceMarkdown, type ScenarioTrace } from './trace-summary';
import type { ProcessUsage } from './usage';

export interface ScenarioResult extends Throughput {
  id: string;
  title: string;
  /** This scenario's req/s over each of its ceilings'. */
  ratios?: { ceiling: string; ratio: number }[];
  api: ProcessUsage;
  worker: ProcessUsage;
  /** Redis round trips per request, counted under MONITOR apart from the timed load (get-cached). */
  redisRoundTrips?: number;
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
  /** How long the worker then took to finish the seed's work (`idle` false: it had not when the wait ran out). */
  seedSettled?: { ms: number; idle: boolean };
  scenarios: ScenarioResult[];
  /** Absent when `--only` left it out. */
  cascade?: CascadeResult & { api: ProcessUsage; worker: ProcessUsage; costs?: RequestCosts };
  /** With `--profile`: the API's CPU profile summed by function and package (bench/load/profile.ts). */
  profile?: string;
  /** With `--trace`: each metered scenario's commands by where they were sent from (bench/load/trace-summary.ts). */
  trace?: ScenarioTrace[];
  targets: Target[];
}

const pct = (n: number) => `${Math.round(n * 100)} %`;

const figure = (n: number) => (Number.isFinite(n) ? String(n) : '–');
const sum = (counts: Record<string, number>, names: string[]) => Math.round(names.reduce((total, name) => total + (counts[name] ?? 0), 0) * 100) / 100;

/** A write path's commands: at most one read and one write per request, nothing else. */
function oneReadOneWrite(goal: string, db: DbCost | undefined): Target {
  // A write that sent no command was not counted (services without mongodb_commands_total).
  if (db !== undefined && db.writes === 0) return { goal, measured: 'not counted', met: false };
  const others = db ? Math.round((db.total - db.reads - db.writes) * 100) / 100 : NaN;
  return {
    goal,
    measured: db ? `${db.reads} reads + ${db.writes} writes${others > 0 ? ` + ${others} other` : ''}` : '–',
    met: db !== undefined && db.reads <= 1 && db.writes <= 1 && !(others > 0),
  };
}

const most = <T extends { finds: number; counts: number }>(items: T[]) => items.reduce((a, b) => (b.finds + b.counts > a.finds + a.counts ? b : a));

/** What a list request's own code sent (`EntityCollection.list`), as the command trace tells it. */
const LIST_SITE = 'EntityCollection.list (';

/**
 * A list query's commands: one find, one count (countDocuments is an `aggregate`), nothing else.
 * With a command trace, those the list itself sent, the rest counted apart (there: the token's
 * revocation recheck every KEY_RECHECK_MS, paid by nearly every request when each takes seconds).
 */
function listCommands(lists: ScenarioResult[], traces: readonly ScenarioTrace[] = []): Target {
  const measured = lists.map((s) => {
    const rows = traces.find((t) => t.id === s.id)?.rows.filter((row) => row.service === 'api');
    const own = rows?.filter((row) => row.sentFrom.startsWith(LIST_SITE));
    const counted = own ? Object.fromEntries(own.map((row) => [row.command, row.perRequest])) : s.costs?.db.byCommand;
    const total = own ? own.reduce((n, row) => n + row.perRequest, 0) : s.costs?.db.total;
    const finds = counted ? sum(counted, ['find', 'getMore']) : NaN;
    const counts = counted ? sum(counted, ['count', 'aggregate']) : NaN;
    const others = total !== undefined ? Math.round((total - finds - counts) * 100) / 100 : NaN;
    const besides = rows && own ? Math.round((rows.reduce((n, row) => n + row.perRequest, 0) - (total ?? 0)) * 100) / 100 : 0;
    return { id: s.id, finds, counts, others, besides, met: finds <= 1 && counts <= 1 && others === 0 };
  });
  const shown = measured.filter((m) => !m.met);
  const text = (m: (typeof measured)[number]) => `${m.id}: ${figure(m.finds)} find + ${figure(m.counts)} count${m.others ? ` + ${figure(m.others)} other` : ''}`;
  const besides = Math.max(0, ...measured.map((m) => m.besides));
  const traced = traces.length > 0;
  return {
    goal: 'each list query: 1 find per request (+ 1 count when it asks for the total: every list asks today)',
    measured:
      (lists.length === 0 ? 'no list query ran' : shown.length ? shown.map(text).join('; ') : `all ${lists.length} met; the most: ${text(most(measured))}`) +
      (traced ? ` (the list's own, from the command trace; the API sent up to ${besides} more per request from elsewhere: see the trace)` : ''),
    met: lists.length > 0 && shown.length === 0,
  };
}

/** What a grouped list's own code sent (`EntityCollection.groups`). */
const GROUP_SITE = 'EntityCollection.groups (';

/**
 * A grouped list (`G1`): one `aggregate` per request, nothing else. With a command trace, what the
 * grouped list itself sent; without, every command of the scenario (key rechecks included).
 */
function groupCommands(scenario: ScenarioResult | undefined, traces: readonly ScenarioTrace[] = []): Target {
  const goal = 'a grouped list (group=): 1 aggregate per request';
  const rows = scenario && traces.find((t) => t.id === scenario.id)?.rows.filter((row) => row.service === 'api' && row.sentFrom.startsWith(GROUP_SITE));
  const counted = rows ? Object.fromEntries(rows.map((row) => [row.command, row.perRequest])) : scenario?.costs?.db.byCommand;
  if (!counted) return { goal, measured: scenario ? 'not counted' : 'not run', met: false };
  const aggregates = sum(counted, ['aggregate']);
  const others = Math.round((sum(counted, Object.keys(counted)) - aggregates) * 100) / 100;
  return { goal, measured: `${figure(aggregates)} aggregate${others > 0 ? ` + ${figure(others)} other` : ''}${rows ? " (the grouped list's own, from the command trace)" : ''}`, met: aggregates <= 1 && others === 0 };
}

export function targetsOf(scenarios: ScenarioResult[], traces?: readonly ScenarioTrace[]): Target[] {
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const ratio = (id: string, ceiling: string) => byId.get(id)?.ratios?.find((r) => r.ceiling === ceiling)?.ratio ?? NaN;
  const costs = (id: string) => byId.get(id)?.costs;
  const lists = scenarios.filter((s) => /^[LQ]\d$/.test(s.id));
  const worstTail = lists.map((s) => ({ id: s.id, factor: s.p99 / s.p50 })).sort((a, b) => b.factor - a.factor)[0];
  const rss = Math.max(...scenarios.map((s) => s.api.maxRssMiB));
  const errors = scenarios.reduce((sum, s) => sum + s.errors, 0);
  const cold = costs('get-cold')?.db.total ?? NaN;
  const cached = costs('get-cached');
  const roundTrips = byId.get('get-cached')?.redisRoundTrips;
  return [
    { goal: 'cached GET entity ≥ 60 % of bare express', measured: pct(ratio('get-cached', 'ceiling-express')), met: ratio('get-cached', 'ceiling-express') >= 0.6 },
    { goal: 'cached GET entity ≥ 25 % of bare Node http', measured: pct(ratio('get-cached', 'ceiling-http')), met: ratio('get-cached', 'ceiling-http') >= 0.25 },
    {
      goal: 'cached GET entity: 0 database commands and ≤ 1 Redis round trip per request',
      measured: cached ? `${cached.db.total} database commands; ${roundTrips ?? '–'} Redis round trips (${cached.redis.total} commands, a script's own included)` : '–',
      met: cached !== undefined && cached.db.total === 0 && roundTrips !== undefined && roundTrips <= 1,
    },
    { goal: 'uncached GET entity: 1 database command per request', measured: figure(cold), met: cold <= 1 },
    { goal: 'uncached GET entity ≥ 70 % of the driver ceiling', measured: pct(ratio('get-cold', 'ceiling-driver-read')), met: ratio('get-cold', 'ceiling-driver-read') >= 0.7 },
    oneReadOneWrite('create (no reference): ≤ 1 database read + 1 write per request (0 reads expected)', costs('create-plain')?.db),
    oneReadOneWrite('create with a reference: ≤ 1 database read + 1 write per request', costs('create')?.db),
    oneReadOneWrite('add a value: ≤ 1 database read + 1 write per request', costs('add-value')?.db),
    listCommands(lists, traces),
    groupCommands(byId.get('G1'), traces),
    { goal: "creates ≥ 60 % of the driver's insert ceiling", measured: pct(ratio('create', 'ceiling-driver-insert')), met: ratio('create', 'ceiling-driver-insert') >= 0.6 },
    { goal: "added values ≥ 60 % of the driver's read-and-replace ceiling", measured: pct(ratio('add-value', 'ceiling-driver-update')), met: ratio('add-value', 'ceiling-driver-update') >= 0.6 },
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

const byCommand = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');

function costRow(s: { id: string; costs?: RequestCosts; bytesPerResponse?: number }): string {
  const c = s.costs;
  const bytes = s.bytesPerResponse === undefined ? '' : figure(s.bytesPerResponse);
  if (!c) return `| ${s.id} | | | | | | | | | | ${bytes} |`;
  return (
    `| ${s.id} | ${c.requests} | ${c.db.total} | ${c.db.reads} | ${c.db.writes} | ${byCommand(c.db.byCommand)} | ` +
    `${c.workerDb.total}${c.workerBusyBefore ? '*' : ''}${c.workerDb.total ? ` (${byCommand(c.workerDb.byCommand)})` : ''} | ${c.redis.total} | ${c.apiCpuMs} | ${c.workerCpuMs}${c.workerBusyBefore ? '*' : ''} | ${bytes} |`
  );
}

export function renderLoadMarkdown(result: LoadResult): string {
  const { machine: m, options: o } = result;
  const costed = [...result.scenarios, ...(result.cascade?.costs ? [{ id: 'cascade', costs: result.cascade.costs, bytesPerResponse: result.cascade.burst.bytesPerResponse }] : [])];
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
    `The API's first write took ${result.firstWriteMs} ms (it loads the definitions into the schema cache; later writes find them there).` +
      (result.seedSettled
        ? result.seedSettled.idle
          ? ` The worker had finished the seed's work ${result.seedSettled.ms} ms later; the scenarios started then.`
          : ` The worker had not finished the seed's work ${result.seedSettled.ms} ms later: the first scenarios' worker figures include it.`
        : ''),
    '',
    '| scenario | what | req/s | p50 ms | p95 ms | p99 ms | errors | vs ceiling | API RSS max | API CPU | worker CPU |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...result.scenarios.map(
      (s) =>
        `| ${s.id} | ${s.title} | ${s.perSecond} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${s.errors}${s.errors ? ` (${Object.entries(s.statuses).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''} | ` +
        `${(s.ratios ?? []).map((r) => `${pct(r.ratio)} of ${r.ceiling}`).join(', ')} | ${s.api.maxRssMiB} MiB | ${s.api.meanCpu} % | ${s.worker.meanCpu} % |`,
    ),
    ...(result.cascade ? ['', cascadeLine(result.cascade)] : []),
    '',
    '## Cost per request',
    '',
    'Counted, not timed: the same on any engine. Database commands as the API (and the worker) counted them (`mongodb_commands_total`, ' +
      'readiness probes left out), reads (find, getMore, aggregate, count, distinct) and writes (insert, update, delete, findAndModify) ' +
      "of them; Redis commands of every client (`INFO commandstats`: the worker's BullMQ polling adds a little); CPU time from " +
      '`/proc/<pid>/stat`; bytes per response as autocannon read them, status line and headers included. Ceilings bypass the API. ' +
      'Each figure is over the requests the API answered; metering ends once it has answered all and, when the worker was idle as the scenario began, the worker is idle again.',
    '',
    '| scenario | requests | DB commands | reads | writes | by command | worker DB commands | Redis commands | API CPU ms | worker CPU ms | bytes/response |',
    '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|',
    ...costed.map(costRow),
    ...(costed.some((s) => s.costs?.workerBusyBefore)
      ? ['', "\\* The worker was still busy with earlier work (the seed's settling) as the scenario began: its figures include some of that."]
      : []),
    ...(result.options.only ? ['', `A partial run: only ${result.options.only.join(', ')}.`] : []),
    '',
    '## Targets',
    '',
    '| goal | measured | met |',
    '|---|---|---|',
    ...result.targets.map((t) => `| ${t.goal} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
    '',
    ...(result.trace ? [renderTraceMarkdown(result.trace), ''] : []),
    ...(result.profile ? [result.profile, ''] : []),
  ];
  return lines.join('\n');
}
