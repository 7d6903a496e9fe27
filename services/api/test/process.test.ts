import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus } from './processes';

describe.each([
  ['entia-api', API_MAIN],
  ['entia-worker', WORKER_MAIN],
])('%s as a process', (service, main) => {
  it.each([
    [{ PORT: 'eighty' }, /^entia-(api|worker): invalid configuration: PORT must be integer \(got "eighty"\)\n$/],
    [{ MONGODB_URL: '' }, /^entia-(api|worker): invalid configuration: MONGODB_URL is required\n$/],
    [{ LOG_LEVEL: 'chatty' }, /LOG_LEVEL must be one of/],
  ])('stops at start with one line naming the bad setting (%j)', async (overrides, expected) => {
    const proc = spawnService(main, stackEnv(overrides));
    expect(await proc.exited).toBe(78);
    expect(proc.stderr()).toMatch(expected);
    expect(proc.stderr()).toContain(service);
  });

  it('starts, becomes ready, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const proc = spawnService(main, stackEnv({ PORT: String(port), WORKER_PORT: String(port), REDIS_PREFIX: `tp${process.pid}` }));
    try {
      expect(await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 20_000)).toBe(200);
    } finally {
      expect(await proc.stop()).toBe(0);
    }
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
