import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerretDb, startRedis, type ManagedServer } from '@entia/stack';
import { eventually } from './eventually';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';
import { acknowledged, serverError, summary, writeLoad, type Outcome, type Targets } from './write-load';

// One fault at a time against a stack of this file's own (Redis and the MongoDB-protocol server
// are killed, paused and restarted; the shared test stack is never touched), under a bounded write
// load through a real API process, with a real worker process keeping the derived values.
// Each scenario asserts: every acknowledged write is stored, no write answered 5xx was stored,
// every request is answered, and the derived values are right within the documented bound
// (2 × SWEEP_INTERVAL_MS after recovery; the issue's target is 60 s) once the fault is over.
const SETTLE_BOUND_MS = 60_000;

describe('writes under faults', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-faults-'));
  let redis: ManagedServer & { url: string };
  let mongo: ManagedServer & { url: string };
  let api: TestApi;
  let apiProcess: Spawned;
  let worker: Spawned;
  let base: string;
  let workerEnv: Record<string, string>;
  let t: TestTenant;
  let types: { invoice: string; row: string; board: string; customer: string };

  const startWorkerProcess = async () => {
    const port = await freePort();
    const proc = spawnService(WORKER_MAIN, { ...workerEnv, WORKER_PORT: String(port) });
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 30_000);
    return proc;
  };

  beforeAll(async () => {
    [redis, mongo] = await Promise.all([startRedis({ dir: join(dir, 'redis') }), startFerretDb({ dir: join(dir, 'mongo') })]);
    const urls = { REDIS_URL: redis.url, MONGODB_URL: mongo.url };
    api = testApi(urls);
    const shared = { ...urls, ...sharedWith(api), MONGODB_TIMEOUT_MS: '1000', READINESS_TIMEOUT_MS: '1000' };
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    apiProcess = spawnService(API_MAIN, stackEnv({ ...shared, PORT: String(port), RATE_LIMIT_MAX: '100000' }));
    workerEnv = stackEnv({ ...shared, WORKER_LOCK_MS: '2000' });
    worker = await startWorkerProcess();
    await waitForStatus(`${base}/readyz`, (s) => s === 200, 30_000);
    t = await testTenant(api);
    const customer = await t.defineType('customer', [{ name: 'name', type: 'string' }]);
    types = {
      customer,
      invoice: await t.defineType('invoice', [
        { name: 'customer', type: 'reference' },
        { name: 'total', type: 'number', formula: '_child.row.amount SUM' },
        { name: 'rows', type: 'number', formula: '_child.row._id COUNT' },
      ]),
      row: await t.defineType('row', [
        { name: 'name', type: 'string' },
        { name: 'amount', type: 'number' },
      ]),
      board: await t.defineType('board', [{ name: 'tag', type: 'string', list: true }]),
    };
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([apiProcess?.stop(), worker?.stop()]);
    await t?.close();
    await api?.close();
    await Promise.allSettled([redis?.stop(), mongo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function created(values: object[]): Promise<string> {
    const res = await t.create(values);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body._id;
  }

  async function freshTargets(): Promise<Targets> {
    const customer = await created([{ type: '_type', reference: types.customer }, { type: 'name', string: 'first' }]);
    return {
      customer,
      invoice: await created([{ type: '_type', reference: types.invoice }, { type: 'customer', reference: customer }]),
      row: types.row,
      board: await created([{ type: '_type', reference: types.board }]),
    };
  }

  /** What the history says of the load's writes, read from the history collection as stored. */
  async function historyOfLoad(targets: Targets, rowIds: string[]) {
    const rows = await api.deps.store.database(t.db).collection('history').find({}).toArray();
    const of = (id: string, type: string) => rows.filter((row) => row.entity.toHexString() === id && row.type === type);
    const totals = of(targets.invoice, 'total').sort((a, b) => b.v - a.v);
    return {
      rowsCreatedOnce: rowIds.map((id) => `${id}:${of(id, '_created').length}`).sort(),
      tags: of(targets.board, 'tag').map((row) => row.new.string).sort(),
      // A rename replaces the one name: one change with the old and the new.
      renames: of(targets.customer, 'name').filter((row) => row.old).map((row) => row.new.string).sort(),
      lastTotal: totals[0]?.new?.number,
      totalsByWorker: totals.every((row) => row.worker === true && row.by === null),
    };
  }

  /**
   * Runs the load, applies `fault` while it runs (it resolves when the fault is over), stops the
   * load, then checks what was acknowledged against what is stored and waits for the derived
   * values. Returns the scenario's figures.
   */
  async function scenario(name: string, fault: () => Promise<void>, { logKept = true } = {}): Promise<string> {
    const targets = await freshTargets();
    let stopped = false;
    const load = writeLoad(base, t, targets, () => stopped);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await fault();
    const recoveredAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    stopped = true;
    const outcomes = await load;

    expect(outcomes.filter((outcome) => outcome.status === 'no answer')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.status === 500)).toEqual([]);
    const entities = api.deps.store.entities(t.db);
    const rows = await entities.children(targets.invoice);
    const storedRows = new Set(rows.map((row) => row.properties.name![0]!.string));
    const board = (await entities.get(targets.board))!.entity;
    const storedTags = new Set((board.properties.tag ?? []).map((value) => value.string));
    const stored = (outcome: Outcome) => (outcome.kind === 'row' ? storedRows.has(outcome.key) : outcome.kind === 'tag' ? storedTags.has(outcome.key) : undefined);

    const lost = outcomes.filter((outcome) => acknowledged(outcome) && stored(outcome) === false);
    expect(lost).toEqual([]);
    // A refused write (4xx or 5xx) is not stored; the last rename standing was acknowledged.
    expect(outcomes.filter((outcome) => !acknowledged(outcome) && stored(outcome) === true)).toEqual([]);
    const customer = (await entities.get(targets.customer))!.entity;
    const finalName = customer.properties.name![0]!.string!;
    const renames = outcomes.filter((outcome) => outcome.kind === 'rename');
    expect(finalName === 'first' ? renames.every((outcome) => !acknowledged(outcome)) : renames.some((outcome) => outcome.key === finalName && acknowledged(outcome))).toBe(true);
    expect(outcomes.filter(acknowledged).length).toBeGreaterThan(0);

    const expected = { total: rows.reduce((sum, row) => sum + row.properties.amount![0]!.number!, 0), rows: rows.length, label: finalName };
    const settled = await eventually(
      async () => {
        const invoice = (await entities.get(targets.invoice))!.entity.properties;
        return { total: invoice.total?.[0]?.number ?? 0, rows: invoice.rows?.[0]?.number ?? 0, label: invoice.customer?.[0]?.string };
      },
      (now) => now.total === expected.total && now.rows === expected.rows && now.label === expected.label,
      SETTLE_BOUND_MS,
    );
    expect(settled).toEqual(expected);

    // Issue 16: no acknowledged change is missing from history, none is there twice, none that was refused is there.
    const renamed = outcomes.filter((outcome) => outcome.kind === 'rename' && acknowledged(outcome)).map((outcome) => outcome.key);
    const wanted = {
      rowsCreatedOnce: rows.map((row) => `${row._id}:1`).sort(),
      tags: [...storedTags].sort(),
      renames: renamed.sort(),
      lastTotal: expected.total,
      totalsByWorker: true,
    };
    const recorded = await eventually(() => historyOfLoad(targets, rows.map((row) => row._id)), (now) => JSON.stringify(now) === JSON.stringify(wanted), SETTLE_BOUND_MS);
    expect(recorded).toEqual(wanted);

    // Issue 18: every stored row's creation is in the change log once; a Redis that lost its data
    // lost the log with it (subscribers get `reset`), and what is published again is there once.
    const createdOnce = (entries: { record: { key: string } }[]) => rows.map((row) => `${row._id}:${entries.filter((entry) => entry.record.key === `${row._id}:1`).length}`).sort();
    const log = await eventually(
      () => api.deps.changes.read(t.db, '0-0', 100_000),
      (entries) => !logKept || JSON.stringify(createdOnce(entries)) === JSON.stringify(rows.map((row) => `${row._id}:1`).sort()),
      SETTLE_BOUND_MS,
    );
    const keys = log.map((entry) => entry.record.key);
    expect(keys.length).toBe(new Set(keys).size);
    if (logKept) expect(createdOnce(log)).toEqual(rows.map((row) => `${row._id}:1`).sort());
    const line = summary(name, outcomes, lost.length, Date.now() - recoveredAt);
    console.info(line);
    expect(outcomes.filter(serverError).every((outcome) => outcome.status === 503)).toBe(true);
    return line;
  }

  it('kill -9 of the worker (started again 2 s later)', async () => {
    await scenario('worker killed', async () => {
      worker.child.kill('SIGKILL');
      await worker.exited;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      worker = await startWorkerProcess();
    });
  }, 180_000);

  it('kill -9 of Redis, restarted empty', async () => {
    await scenario('redis killed, restarted empty', async () => {
      await redis.kill();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await redis.restart();
    }, { logKept: false });
  }, 180_000);

  it('Redis paused for 3 s during writes', async () => {
    await scenario('redis paused 3 s', async () => {
      await redis.pause();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await redis.resume();
    });
  }, 180_000);

  it('kill -9 of the MongoDB-protocol server, restarted on its data', async () => {
    await scenario('mongodb killed, restarted on its data', async () => {
      await mongo.kill();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await mongo.restart();
    });
  }, 180_000);
});
