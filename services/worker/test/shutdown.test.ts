import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type ManagedServer } from '@entia/stack';
import { WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from '../../api/test/processes';

// The worker runs as a real process against a Redis of its own, which the test kills.
describe('the worker process on SIGTERM', () => {
  const GRACE_MS = 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'entia-worker-stop-'));
  let redis: ManagedServer & { url: string };
  let worker: Spawned;

  beforeAll(async () => {
    redis = await startRedis({ dir: join(dir, 'redis') });
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0 within the grace period while its Redis is down', async () => {
    const port = await freePort();
    worker = spawnService(WORKER_MAIN, stackEnv({ WORKER_PORT: String(port), REDIS_URL: redis.url, SHUTDOWN_TIMEOUT_MS: String(GRACE_MS) }));
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 20_000);

    await redis.kill();
    // Readiness names Redis as down (degraded, not 503: a shared outage must not empty a Service).
    const deadline = Date.now() + 10_000;
    const redisDown = async () => ((await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { checks?: { redis?: string } }).checks?.redis === 'down';
    while (!(await redisDown())) {
      if (Date.now() > deadline) throw new Error('readiness never named Redis as down');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const signalledAt = Date.now();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS);
  }, 60_000);
});
