import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerretDb, startRedis, type ManagedServer } from '@entia/stack';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';

// The API runs as a real process against a Redis and a MongoDB-protocol server of its own, which
// the test kills and brings back: the shared test stack is never touched.
describe('the API through a dependency outage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-outage-'));
  let redis: ManagedServer & { url: string };
  let mongo: ManagedServer & { url: string };
  let api: Spawned;
  let readyz: string;

  beforeAll(async () => {
    [redis, mongo] = await Promise.all([startRedis({ dir: join(dir, 'redis') }), startFerretDb({ dir: join(dir, 'mongo') })]);
    const port = await freePort();
    readyz = `http://127.0.0.1:${port}/readyz`;
    api = spawnService(API_MAIN, stackEnv({ PORT: String(port), REDIS_URL: redis.url, MONGODB_URL: mongo.url, MONGODB_TIMEOUT_MS: '1000', READINESS_TIMEOUT_MS: '1000' }));
    await waitForStatus(readyz, (s) => s === 200, 20_000);
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await Promise.allSettled([redis?.stop(), mongo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function readiness(): Promise<{ status: number; body: { detail?: string; checks?: Record<string, string> } }> {
    const res = await fetch(readyz, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: (await res.json()) as { detail?: string; checks?: Record<string, string> } };
  }

  it.each([
    ['redis', () => redis],
    ['mongodb', () => mongo],
  ])('%s killed: /readyz turns 503 naming it within seconds, and 200 again when it returns', async (name, server) => {
    await server().kill();
    const killedAt = Date.now();
    await waitForStatus(readyz, (s) => s === 503, 10_000);
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body.detail).toContain(name);
    expect(down.body.checks?.[name]).toBe('down');
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    // Still serving, not crashed or hung:
    expect((await fetch(readyz.replace('/readyz', '/healthz'))).status).toBe(200);
    expect(api.child.exitCode).toBeNull();

    await server().restart();
    await waitForStatus(readyz, (s) => s === 200, 20_000);
    expect((await readiness()).body.checks).toEqual({ mongodb: 'up', redis: 'up', storage: 'up' });
  }, 60_000);
});
