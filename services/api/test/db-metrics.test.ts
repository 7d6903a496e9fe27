import { randomBytes } from 'node:crypto';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

const commands = async (metrics: string): Promise<Record<string, number>> => {
  const text = await (await fetch(`${metrics}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/^mongodb_commands_total\{command="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
};

// The database commands each service sends, by name, on its metrics endpoint (issue 21).
describe('mongodb_commands_total', () => {
  let api: TestApi;
  let t: TestTenant;
  const procs: Spawned[] = [];
  afterAll(async () => {
    for (const proc of procs) expect(await proc.stop()).toBe(0);
    await t?.close();
    await api?.close();
  });

  it("the API's: a GET of an entity nobody read yet counts a find", async () => {
    api = testApi();
    t = await testTenant(api);
    const id = (await t.create([{ type: '_type', reference: t.types.person }, { type: 'name', string: 'Counted' }])).body._id as string;
    const [port, metricsPort] = [await freePort(), await freePort()];
    procs.push(spawnService(API_MAIN, stackEnv({ PORT: String(port), METRICS_PORT: String(metricsPort), MONGODB_COMMAND_METRICS: 'true', ...sharedWith(api) })));
    const base = `http://127.0.0.1:${port}`;
    const metrics = `http://127.0.0.1:${metricsPort}`;
    await waitForStatus(`${base}/readyz`, (s) => s === 200, 20_000);

    const before = await commands(metrics);
    const res = await fetch(`${base}/api/${t.db}/entity/${id}`, { headers: { authorization: t.owner.auth } });
    expect(res.status).toBe(200);
    const after = await commands(metrics);
    expect((after.find ?? 0) - (before.find ?? 0)).toBeGreaterThanOrEqual(1);
    // The readiness probe's ping is a command; the driver's heartbeats are not.
    expect(after.ping).toBeGreaterThanOrEqual(1);
    expect(Object.keys(after).every((name) => /^[a-zA-Z]+$/.test(name))).toBe(true);
  }, 40_000);

  it("the worker's, on its own /metrics", async () => {
    const port = await freePort();
    procs.push(spawnService(WORKER_MAIN, stackEnv({ WORKER_PORT: String(port), MONGODB_COMMAND_METRICS: 'true', ...sharedWith(api), REDIS_PREFIX: `wm${randomBytes(4).toString('hex')}` })));
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 20_000);
    expect((await commands(`http://127.0.0.1:${port}`)).ping).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('is not there unless MONGODB_COMMAND_METRICS is on (monitoring costs a second decoding of every reply)', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    procs.push(spawnService(API_MAIN, stackEnv({ PORT: String(port), METRICS_PORT: String(metricsPort), ...sharedWith(api) })));
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 20_000);
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toContain('http_request_duration_seconds');
    expect(text).not.toContain('mongodb_commands_total');
  }, 30_000);
});
