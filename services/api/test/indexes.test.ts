import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { ENTITY_INDEXES } from '@entia/store';
import { createDatabase } from '@entia/entities';
import { indexMetrics, keepIndexes } from '../src/admin/indexes';
import { eventually } from './eventually';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus } from './processes';
import { testApi, type TestApi } from './support';

// On the test stack's MongoDB-protocol server (FerretDB here), with a control database of this
// file's own, so the keeper sees only the tenants made here.

interface LogLine {
  level: number;
  msg: string;
  database?: string;
  indexes?: string[];
  err?: { message: string };
}

function memoryLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function metric(registry: Registry, name: string): Promise<number> {
  const found = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (found?.values[0]?.value as number | undefined) ?? NaN;
}

describe('index definitions on existing databases', () => {
  const control = `ix_${randomBytes(4).toString('hex')}`;
  let api: TestApi;
  const tenants: string[] = [];

  beforeAll(() => {
    api = testApi({ MONGODB_CONTROL_DB: control });
  });

  afterAll(async () => {
    for (const db of tenants) await api.deps.store.database(db).dropDatabase();
    await api.deps.store.control.dropDatabase();
    await api.close();
  });

  async function tenant(): Promise<string> {
    const { db } = await createDatabase(api.deps.store, `ix_${randomBytes(5).toString('hex')}`, 'Owner');
    tenants.push(db);
    return db;
  }

  const entityIndexes = (db: string) => api.deps.store.database(db).collection('entity');
  const indexKeys = async (db: string) =>
    Object.fromEntries((await entityIndexes(db).listIndexes().toArray()).map((index) => [index.name as string, index.key as object]));

  it('builds a definition an existing database lacks, each with its own command, and says so', async () => {
    const db = await tenant();
    await entityIndexes(db).dropIndex('type');
    expect(await indexKeys(db)).not.toHaveProperty('type');

    const registry = new Registry();
    const { logger, lines } = memoryLogger();
    const keeper = keepIndexes(api.deps.store, logger, indexMetrics(registry));
    await keeper.done;

    const keys = await indexKeys(db);
    for (const definition of ENTITY_INDEXES) expect(keys[definition.name]).toEqual(definition.key);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'indexes built', database: db, indexes: ['type'] }));
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(await metric(registry, 'entia_index_definitions_missing')).toBe(0);
  });

  it('logs a definition it cannot build at error, counts it as missing, and retries until it is built', async () => {
    const db = await tenant();
    // Another index holds the name: createIndex fails until an operator removes it.
    await entityIndexes(db).dropIndex('search');
    await entityIndexes(db).createIndex({ __q: -1 }, { name: 'search' });

    const registry = new Registry();
    const { logger, lines } = memoryLogger();
    const keeper = keepIndexes(api.deps.store, logger, indexMetrics(registry), { firstRetryMs: 100, maxRetryMs: 200 });
    try {
      await eventually(
        async () => lines.filter((line) => line.level >= 50 && line.database === db).length,
        (errors) => errors >= 2,
      );
      expect(lines.find((line) => line.level >= 50)?.err?.message).toContain('search');
      expect(await metric(registry, 'entia_index_definitions_missing')).toBe(1);
      expect(await metric(registry, 'entia_index_build_failures_total')).toBeGreaterThanOrEqual(2);

      await entityIndexes(db).dropIndex('search');
      await keeper.done;
      expect((await indexKeys(db)).search).toEqual({ __q: 1 });
      expect(await metric(registry, 'entia_index_definitions_missing')).toBe(0);
    } finally {
      keeper.stop();
    }
  });

  it('the API process builds missing definitions at start and exports the state on /metrics (METRICS_PORT)', async () => {
    const db = await tenant();
    await entityIndexes(db).dropIndex('references');
    await api.deps.store.control.collection('api_keys').dropIndex('value');

    const [port, metricsPort] = [await freePort(), await freePort()];
    const proc = spawnService(
      API_MAIN,
      stackEnv({ PORT: String(port), METRICS_PORT: String(metricsPort), MONGODB_CONTROL_DB: control, REDIS_PREFIX: `ix${randomBytes(4).toString('hex')}` }),
    );
    try {
      await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 20_000);
      const text = await eventually(
        async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
        (metrics) => /^entia_index_definitions_missing 0$/m.test(metrics),
      );
      expect(text).toMatch(/^entia_index_build_failures_total 0$/m);
      expect((await indexKeys(db)).references).toEqual({ __refs: 1 });
      const controlIndexes = await api.deps.store.control.collection('api_keys').listIndexes().toArray();
      expect(controlIndexes.map((index) => index.name)).toContain('value');
    } finally {
      expect(await proc.stop()).toBe(0);
    }
  }, 60_000);
});
