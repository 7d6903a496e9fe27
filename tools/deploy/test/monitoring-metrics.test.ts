import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { parse } from 'yaml';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from '../../../services/api/test/processes';
import { dashboardQueries, exposedNames, selectors } from '../src/monitoring';
import { readMonitoring } from './monitoring-support';

// The alert rules and the dashboard against what the services really export: an API and a worker
// started from the built mains on the test stack, scraped as Prometheus scrapes them (the API on
// METRICS_PORT, the worker on WORKER_PORT). A metric renamed in the code, or misspelt in a rule or
// a panel, fails here rather than leaving an alert that can never fire.
jest.setTimeout(60_000);

type Job = 'entia-api' | 'entia-worker';
const JOBS: Job[] = ['entia-api', 'entia-worker'];
const rules = (parse(readMonitoring('alerts.yaml')) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(readMonitoring('entia-dashboard.json'));
const expressions = [
  ...rules.map((rule) => ({ where: `alerts.yaml ${rule.alert}`, expr: rule.expr })),
  ...dashboardQueries(dashboard, { namespace: '.*', __rate_interval: '5m' }).map((q) => ({ where: `dashboard "${q.panel}" ${q.refId}`, expr: q.expr })),
];

describe('the metrics the alert rules and the dashboard name', () => {
  const controlDb = `ctl_mon_${randomBytes(4).toString('hex')}`;
  const env = stackEnv({ REDIS_PREFIX: `mon${randomBytes(4).toString('hex')}`, MONGODB_CONTROL_DB: controlDb });
  const processes: Spawned[] = [];
  const scraped = {} as Record<Job, string>;
  let apiBase: string;

  beforeAll(async () => {
    for (const name of ['MONGODB_URL', 'REDIS_URL', 'S3_ENDPOINT', 'JWT_SECRET']) {
      if (!env[name]) throw new Error(`${name} is not set: run through \`npm test\`, or load a stack's environment (set -a; . ./.stack/env; set +a)`);
    }
    const [port, metricsPort, workerPort] = [await freePort(), await freePort(), await freePort()];
    processes.push(spawnService(API_MAIN, { ...env, PORT: String(port), METRICS_PORT: String(metricsPort) }));
    apiBase = `http://127.0.0.1:${port}`;
    processes.push(spawnService(WORKER_MAIN, { ...env, WORKER_PORT: String(workerPort) }));
    const targets: Record<Job, string> = { 'entia-api': `http://127.0.0.1:${metricsPort}/metrics`, 'entia-worker': `http://127.0.0.1:${workerPort}/metrics` };
    for (const [job, url] of Object.entries(targets) as [Job, string][]) {
      await waitForStatus(url, (status) => status === 200, 30_000);
      // Until its connections are up (a first scrape may come before), then the scrape the tests read.
      const deadline = Date.now() + 30_000;
      do scraped[job] = await (await fetch(url)).text();
      while (/^entia_dependency_up\{.*\} 0$/m.test(scraped[job]) && Date.now() < deadline && (await sleep(200, true)));
    }
    await waitForStatus(`${apiBase}/healthz`, (status) => status === 200, 30_000);
  }, 90_000);

  afterAll(async () => {
    const codes = await Promise.all(processes.map((p) => p.stop()));
    // What the two processes left: their control database and their Redis keys (queue, limits).
    const client = await MongoClient.connect(env.MONGODB_URL!);
    const redis = new Redis(env.REDIS_URL!);
    try {
      await client.db(controlDb).dropDatabase();
      const keys = await redis.keys(`${env.REDIS_PREFIX}:*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      await client.close();
      redis.disconnect();
    }
    expect(codes).toEqual([0, 0]);
  });

  it('are all exported, each by the service whose job the expression names', () => {
    const exposed: Record<string, Set<string>> = { 'entia-api': exposedNames(scraped['entia-api']), 'entia-worker': exposedNames(scraped['entia-worker']) };
    // `up` is Prometheus's own, for every target.
    for (const names of Object.values(exposed)) names.add('up');
    const exports = (metric: string, job: string) => exposed[job]?.has(metric) ?? false;
    /** `job="…"` or `job=~"a|b"`: every job named exports it; no job named: one of them does. */
    const missing = (list: { where: string; expr: string }[]) =>
      list.flatMap(({ where, expr }) =>
        selectors(expr)
          .filter(({ metric, jobs }) => (jobs ? !jobs.every((job) => exports(metric, job)) : !JOBS.some((job) => exports(metric, job))))
          .map(({ metric, jobs }) => `${where}: ${metric} from ${jobs?.join('|') ?? 'any job'}`),
      );
    expect(missing(expressions)).toEqual([]);
    // …and the check finds what is not there: a name nobody exports, one the other service exports.
    expect(missing([{ where: 'x', expr: 'entia_nothing_total + rate(entia_queue_jobs{job="entia-api"}[5m]) + up{job=~"entia-api|entia-worker"}' }])).toEqual([
      'x: entia_nothing_total from any job',
      'x: entia_queue_jobs from entia-api',
    ]);
  });

  it('name, where they pick routes, route patterns the API has (as the `route` label has them)', async () => {
    const openapi = (await (await fetch(`${apiBase}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const routes = new Set(Object.keys(openapi.paths).map((path) => path.replace(/\{(\w+)\}/g, ':$1')));
    const named = expressions.flatMap(({ where, expr }) => [...expr.matchAll(/\broute\s*(?:=~|!~|!=|=)\s*"([^"]+)"/g)].flatMap(([, alternatives]) => alternatives!.split('|').map((route) => ({ where, route }))));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter(({ route }) => !routes.has(route))).toEqual([]);
  });

  it('include entia_dependency_up, 1 for each dependency each service checks and reaches', () => {
    const samples = (text: string) => [...text.matchAll(/^entia_dependency_up\{dependency="(\w+)"\} (\S+)$/gm)].map(([, dependency, value]) => [dependency, value]);
    expect(samples(scraped['entia-api'])).toEqual([
      ['mongodb', '1'],
      ['redis', '1'],
      ['storage', '1'],
    ]);
    expect(samples(scraped['entia-worker'])).toEqual([
      ['mongodb', '1'],
      ['redis', '1'],
    ]);
  });
});
