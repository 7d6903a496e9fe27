import { createRedis } from '@entia/jobs';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { commandstats, counterValues, cpuTicks, dbCost, difference, redisCost, total, workerIdle, type Counts, type DbCost } from './counts';

/**
 * What a scenario cost per request, counted rather than timed (the same on any engine): the
 * database commands the API and the worker sent (their `mongodb_commands_total`), the Redis
 * commands of every client (`INFO commandstats`), and the API's and the worker's CPU time.
 */
export interface RequestCosts {
  /** Requests the API answered in the metered span (`http_requests_total`): the divisor of every figure. */
  requests: number;
  db: DbCost;
  workerDb: DbCost;
  /** The worker was busy with older work (the seed's) when the scenario began: its figures include some of that. */
  workerBusyBefore: boolean;
  /** Every Redis client's commands, the worker's background polling included. */
  redis: { total: number; byCommand: Counts };
  /** Milliseconds of CPU time (user + system) per request. */
  apiCpuMs: number;
  workerCpuMs: number;
  /** Milliseconds waited after the load for the API to answer what was sent and the worker to finish the work left. */
  settleMs: number;
  /** When metering began and ended (epoch milliseconds): what a command trace of the scenario covers. */
  span: { from: number; to: number };
}

export interface CostSources {
  /** The API's and the worker's `/metrics` URLs. */
  apiMetrics: string;
  workerMetrics: string;
  redisUrl: string;
  apiPid: number;
  workerPid: number;
  /** The longest wait for the services to settle after a scenario. */
  settleMs?: number;
}

/** Starts metering now; `stop` with the number of requests sent meanwhile, once the load is over. */
export type Meter = () => Promise<{ stop(sent: number): Promise<RequestCosts> }>;

const COMMANDS = 'mongodb_commands_total';
const POLL_MS = 500;
const CALIBRATION_SCRAPES = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function clockTicksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return res.text();
}

const ticksOf = async (pid: number) => cpuTicks(await readFile(`/proc/${pid}/stat`, 'utf8'));
const times = (counts: Counts, n: number): Counts => Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v * n]));

/**
 * A meter over `sources`, and what closes it. At the end of a scenario it waits (up to `settleMs`)
 * until the API has answered every request sent (autocannon stops at its deadline with requests in
 * flight) and its commands stop, and, when the worker was idle (no job queued or running, no
 * pending mark) as the scenario began, until it is idle again: the work a request left the worker
 * is counted with it, not with the next scenario. A worker still busy with older work (on a slow
 * engine, the seed's settling lasts long) is not waited for; its figures say so. `settled` waits for
 * the worker before the first scenario.
 *
 * The meter stays out of what it measures: what one scrape costs, measured once at the start, is
 * taken off per scrape made while metering: the worker's scrape queries MongoDB (its pending marks)
 * and Redis (its queue), and both services' scrapes take CPU time.
 */
export async function costMeter(sources: CostSources): Promise<{ meter: Meter; settled(ms?: number): Promise<{ ms: number; idle: boolean }>; close(): void }> {
  const redis = createRedis(sources.redisUrl, 'command', () => undefined);
  const hz = clockTicksPerSecond();
  const settleMs = sources.settleMs ?? 60_000;
  const made = { api: 0, worker: 0 };
  const api = async () => {
    made.api++;
    const text = await scrape(sources.apiMetrics);
    return { commands: counterValues(text, COMMANDS, 'command'), requests: total(counterValues(text, 'http_requests_total', 'status')) };
  };
  const worker = async () => {
    made.worker++;
    const text = await scrape(sources.workerMetrics);
    return { commands: counterValues(text, COMMANDS, 'command'), idle: workerIdle(text) };
  };
  const redisCalls = async () => commandstats(await redis.info('commandstats'));
  const ticks = () => Promise.all([ticksOf(sources.apiPid), ticksOf(sources.workerPid)]);

  // A worker scrape's commands show in the next scrape's counts; its Redis calls at once.
  const [first, calls] = [await worker(), await redisCalls()];
  const second = await worker();
  const scrapeRedis = difference(calls, await redisCalls());
  // CPU time: the API's scrapes timed; a worker scrape (a registry of the same kind) taken to cost
  // as much: the worker's own time cannot be told apart while it settles the seed.
  const apiTicks0 = await ticksOf(sources.apiPid);
  for (let i = 0; i < CALIBRATION_SCRAPES; i++) await api();
  const ticksPerScrape = ((await ticksOf(sources.apiPid)) - apiTicks0) / CALIBRATION_SCRAPES;
  const scrapeCost = { db: difference(first.commands, second.commands), redis: scrapeRedis, ticks: ticksPerScrape };

  /** Polls until the API's commands stop and (when `worker`) the worker is idle, or the deadline; the worker scrapes made and the last scrapes. */
  const settle = async (deadline: number, waitForWorker = true) => {
    let apiLast = await api();
    let scrapes = 0;
    for (;;) {
      await sleep(POLL_MS);
      const [apiNext, workerNext] = await Promise.all([api(), worker()]);
      scrapes++;
      const quiet = total(difference(apiLast.commands, apiNext.commands)) === 0 && (workerNext.idle || !waitForWorker);
      apiLast = apiNext;
      if (quiet || Date.now() > deadline) return { scrapes, api: apiNext, worker: workerNext };
    }
  };

  const meter: Meter = async () => {
    const from = Date.now();
    const [apiBefore, workerBefore] = await Promise.all([api(), worker()]);
    const redisBefore = await redisCalls();
    const [apiTicks, workerTicks] = await ticks();
    const madeBefore = { ...made };
    return {
      async stop(sent) {
        const started = Date.now();
        const deadline = started + settleMs;
        while ((await api()).requests - apiBefore.requests < sent && Date.now() < deadline) await sleep(POLL_MS / 2);
        const { scrapes, api: apiAfter, worker: workerAfter } = await settle(deadline, workerBefore.idle);
        const [apiTicksAfter, workerTicksAfter] = await ticks();
        const redisAfter = await redisCalls();
        const requests = apiAfter.requests - apiBefore.requests;
        const per = Math.max(requests, 1);
        const cpuMs = (ticks: number, scrapes: number, perScrape: number) => Math.round(((Math.max(0, ticks - scrapes * perScrape) * 1000) / hz / per) * 1000) / 1000;
        return {
          requests,
          db: dbCost(difference(apiBefore.commands, apiAfter.commands), per),
          // The starting scrape's commands and those of the scrapes while settling (the last one's come later).
          workerDb: dbCost(difference(workerBefore.commands, workerAfter.commands, times(scrapeCost.db, scrapes)), per),
          workerBusyBefore: !workerBefore.idle,
          redis: redisCost(difference(redisBefore, redisAfter, times(scrapeCost.redis, scrapes)), per),
          apiCpuMs: cpuMs(apiTicksAfter - apiTicks, made.api - madeBefore.api, scrapeCost.ticks),
          workerCpuMs: cpuMs(workerTicksAfter - workerTicks, made.worker - madeBefore.worker, scrapeCost.ticks),
          settleMs: Date.now() - started,
          span: { from, to: Date.now() },
        };
      },
    };
  };
  return {
    meter,
    async settled(ms = settleMs) {
      const started = Date.now();
      const { worker } = await settle(started + ms);
      return { ms: Date.now() - started, idle: worker.idle };
    },
    close: () => redis.disconnect(),
  };
}
