/**
 * Load benchmark (not a test): seeds a tenant database, starts the API and the worker as their own
 * processes, drives them with autocannon at a fixed concurrency, measures the same reads and writes
 * straight through the MongoDB driver and a bare Node http server as ceilings in the same run,
 * samples both services' RSS and CPU, and writes bench/results/load-<timestamp>.md and .json.
 *
 *   npm run bench                            (100 000 entities; see --help)
 */
import { freePort, startStack, type Stack } from '@entia/stack';
import { ObjectId } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { formulaCascade } from './load/cascade';
import { costMeter } from './load/costs';
import { readLoadOptions } from './load/options';
import { renderProfileMarkdown, summariseProfile, type CpuProfile } from './load/profile';
import { renderLoadMarkdown, targetsOf, type LoadResult, type ScenarioResult } from './load/report';
import { listScenarios, scenarios, type Bench, type Scenario } from './load/scenarios';
import { startService, type Service } from './load/services';
import { sampleUsage, type ProcessUsage } from './load/usage';
import { machine } from './machine';
import { redisRoundTrips } from './load/round-trips';
import { parseTrace, summariseTrace, type ScenarioTrace } from './load/trace-summary';
import { dropBenchDatabase, forgetSeedWork, loadWorld, ownerApiKey, seed, type World } from './seed';
import { openBenchApp } from './app';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** Each metered scenario's commands, from the services' trace files, grouped by where they were sent from. */
function traceOf(results: ScenarioResult[], cascade: LoadResult['cascade'], files: Record<string, string>): ScenarioTrace[] {
  const traces = new Map(Object.entries(files).map(([service, file]) => [service, existsSync(file) ? parseTrace(readFileSync(file, 'utf8')) : []]));
  const metered = [...results, ...(cascade?.costs ? [{ id: 'cascade', costs: cascade.costs }] : [])];
  return metered.flatMap(({ id, costs }) => (costs ? [{ id, requests: costs.requests, rows: summariseTrace(traces, costs.span, costs.requests) }] : []));
}

async function main(): Promise<void> {
  const options = readLoadOptions();
  const startedAt = new Date();
  let stack: Stack | undefined;
  if (!process.env.MONGODB_URL) {
    log('no MONGODB_URL: starting an ephemeral local stack');
    stack = await startStack();
    Object.assign(process.env, stack.env);
  }
  const env = process.env as Record<string, string>;
  const app = openBenchApp({ controlDb: env.MONGODB_CONTROL_DB ?? 'entia', timeoutMs: 60_000, reachMs: 10_000 });
  const { store } = app;
  const services: Service[] = [];
  let closeMeter = () => {};
  let created = false;
  try {
    let world: World;
    let seeding: LoadResult['seeding'];
    if (options.reuse) {
      ({ world } = await loadWorld(store, options.db));
    } else {
      log(`seeding ${options.size} entities into ${options.db}`);
      const seeded = await seed(app, { db: options.db, size: options.size, batch: 1000, seed: 42, maxTimeMS: 600_000, onCreated: () => (created = true) });
      world = seeded.world;
      seeding = { totalMs: Math.round(seeded.report.totalMs) };
      log(`seeded in ${(seeded.report.totalMs / 1000).toFixed(0)} s`);
      log(`forgot the seed's derived work on ${await forgetSeedWork(store, options.db)} entities (not measured)`);
    }
    const host = await machine(store, options.db);
    log(`engine: ${host.engine}; ${host.nproc} CPUs, ${host.memoryGiB} GiB, Node ${host.node}`);

    const [apiPort, workerPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    const serviceEnv = {
      ...Object.fromEntries(['MONGODB_URL', 'MONGODB_CONTROL_DB', 'REDIS_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION', 'JWT_SECRET'].flatMap((k) => (env[k] ? [[k, env[k]!]] : []))),
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      WORKER_PORT: String(workerPort),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: env.BENCH_LOG_LEVEL ?? 'warn',
      MONGODB_TIMEOUT_MS: String(options.timeoutMs),
      // An engine busy scanning may answer the driver's heartbeat late: measured, not taken for hung.
      DEPENDENCY_TIMEOUT_MS: '10000',
      REDIS_PREFIX: `bench${randomBytes(4).toString('hex')}`,
      // The load generator is one client: the per-client limit would be what is measured.
      RATE_LIMIT_MAX: '1000000000',
      // Database commands per request are counted from the services' mongodb_commands_total.
      MONGODB_COMMAND_METRICS: 'true',
    };
    const instruments = {
      ...(options.profileDir === undefined ? {} : { profileDir: resolve(options.profileDir) }),
      ...(options.traceDir === undefined ? {} : { traceDir: resolve(options.traceDir) }),
    };
    if (instruments.traceDir) mkdirSync(instruments.traceDir, { recursive: true });
    services.push(await startService('api', serviceEnv, apiPort, instruments), await startService('worker', serviceEnv, workerPort, instruments));
    const [api, worker] = services as [Service, Service];
    const base = `http://127.0.0.1:${apiPort}`;
    const key = await ownerApiKey(app, world);
    const token = ((await (await fetch(`${base}/api/auth?db=${world.db}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { token: string }).token;

    const collection = store.database(world.db).collection('entity');
    const ids = shuffled((await collection.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id.toHexString()));
    const books = shuffled(
      (await collection.find({ '_type.reference': new ObjectId(world.types.book) }, { projection: { _id: 1 } }).toArray()).map((d) => d._id.toHexString()),
    );
    const costs = await costMeter({
      apiMetrics: `http://127.0.0.1:${metricsPort}/metrics`,
      workerMetrics: `http://127.0.0.1:${workerPort}/metrics`,
      redisUrl: env.REDIS_URL!,
      apiPid: api.pid,
      workerPid: worker.pid,
      settleMs: options.settleMs,
    });
    closeMeter = costs.close;
    const bench: Bench = { base, token, world, app, store, connections: options.connections, duration: options.duration, listRequests: options.listRequests, ids, books, meter: costs.meter };

    log(`API log: ${api.logFile}; worker log: ${worker.logFile}`);
    // The first write loads the database's definitions into the API's schema cache (on an engine
    // that scans, that takes as long as reading the collection): timed apart, not in a scenario.
    const warmStarted = performance.now();
    const warm = await fetch(`${base}/api/${world.db}/entity`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ type: '_type', reference: world.types.author }, { type: 'name', string: 'Warm Up' }]),
    });
    const firstWriteMs = Math.round(performance.now() - warmStarted);
    log(`first write (schema load): ${warm.status} in ${firstWriteMs} ms`);
    // The seed leaves the worker settling its entities: waited for, not measured with the first scenario.
    const seedSettled = await costs.settled();
    log(seedSettled.idle ? `worker idle ${seedSettled.ms} ms after the first write` : `worker still busy after ${seedSettled.ms} ms: its figures include the seed's work`);
    const results: ScenarioResult[] = [];
    const measure = async <T>(run: () => Promise<T>) => {
      const usage = [sampleUsage(api.pid), sampleUsage(worker.pid)];
      const value = await run();
      const [apiUsage, workerUsage] = usage.map((u) => u.stop()) as [ProcessUsage, ProcessUsage];
      return { value, api: apiUsage, worker: workerUsage };
    };
    const runAll = async (list: Scenario[]) => {
      for (const scenario of list) {
        const { value: measured, api: apiUsage, worker: workerUsage } = await measure(() => scenario.run(bench));
        const ratios = (scenario.ceilings ?? []).flatMap((id) => {
          const ceiling = results.find((r) => r.id === id);
          return ceiling ? [{ ceiling: id, ratio: Math.round((measured.perSecond / ceiling.perSecond) * 1000) / 1000 }] : [];
        });
        results.push({
          id: scenario.id,
          title: scenario.title,
          ...measured,
          ...(ratios.length ? { ratios } : {}),
          api: apiUsage,
          worker: workerUsage,
        });
        log(`${scenario.id}: ${measured.perSecond} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, ${measured.errors} errors, API RSS ${apiUsage.maxRssMiB} MiB`);
        if (scenario.id === 'get-cached') {
          // Right after it, while its entries are still current: its round trips, counted apart.
          const hot = bench.ids.slice(0, 100);
          let i = 0;
          const get = async () => void (await (await fetch(`${base}/api/${world.db}/entity/${hot[i++ % hot.length]}`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer());
          results[results.length - 1]!.redisRoundTrips = await redisRoundTrips(env.REDIS_URL!, serviceEnv.REDIS_PREFIX, 50, get);
          log(`get-cached: ${results[results.length - 1]!.redisRoundTrips} Redis round trips per request (MONITOR, 50 GETs)`);
        }
      }
    };
    const wanted = (id: string) => options.only === undefined || options.only.includes(id);
    await runAll(scenarios(world).filter((s) => wanted(s.id)));
    let cascade: LoadResult['cascade'];
    if (wanted('cascade')) {
      // Metered from the definitions to the settled parent: what each child cost, the worker's settling included.
      const metering = await costs.meter();
      const { value, api: cascadeApi, worker: cascadeWorker } = await measure(() => formulaCascade(bench, options.children));
      cascade = { ...value, api: cascadeApi, worker: cascadeWorker, costs: await metering.stop(options.children) };
      log(`cascade: ${value.children} children settled ${value.settleMs} ms after the burst; parent rewritten ${value.parentWrites} times`);
    }
    await runAll(listScenarios(world).filter((s) => wanted(s.id)));
    // A service writes its CPU profile when it stops: stopped here, before the report that sums the API's.
    closeMeter();
    for (const service of services) await service.stop();
    const profile = api.profileFile && existsSync(api.profileFile) ? summariseProfile(JSON.parse(readFileSync(api.profileFile, 'utf8')) as CpuProfile) : undefined;
    const trace = api.traceFile && worker.traceFile ? traceOf(results, cascade, { api: api.traceFile, worker: worker.traceFile }) : undefined;

    const result: LoadResult = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { ...host, loadAverage: { ...host.loadAverage, end: loadavg().map((l) => Math.round(l * 100) / 100) } },
      options,
      world: { db: world.db, size: world.size, counts: world.counts, sharing: world.sharing },
      ...(seeding ? { seeding } : {}),
      firstWriteMs,
      seedSettled,
      scenarios: results,
      ...(cascade ? { cascade } : {}),
      targets: targetsOf(results, trace),
      ...(trace ? { trace } : {}),
      ...(profile ? { profile: renderProfileMarkdown(profile, `API CPU profile (${api.profileFile}; the whole run: use --only for one scenario)`) } : {}),
    };
    const markdown = renderLoadMarkdown(result);
    const stamp = startedAt.toISOString().replace(/:/g, '').replace(/\.\d+Z$/, 'Z');
    mkdirSync(resolve(options.outDir), { recursive: true });
    const file = resolve(options.outDir, `load-${stamp}`);
    writeFileSync(`${file}.md`, markdown);
    writeFileSync(`${file}.json`, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(markdown);
    log(`wrote ${file}.md and ${file}.json`);
  } finally {
    closeMeter();
    for (const service of services.reverse()) await service.stop();
    if (created && !options.keep) await dropBenchDatabase(store, options.db).catch((error) => log(`could not drop ${options.db}: ${(error as Error).message}`));
    await app.close();
    await stack?.stop();
  }
}

main().catch((error) => {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
});
