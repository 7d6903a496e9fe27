import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';

// The API process as the image runs it: the API and its probes on PORT, Prometheus metrics on
// METRICS_PORT only (the port Kubernetes' Service and Ingress do not route).
describe('the API process serves its metrics on METRICS_PORT, not on PORT', () => {
  let proc: Spawned;
  let api: string;
  let metrics: string;

  beforeAll(async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    proc = spawnService(API_MAIN, stackEnv({ PORT: String(port), METRICS_PORT: String(metricsPort), REDIS_PREFIX: `mp${randomBytes(4).toString('hex')}` }));
    api = `http://127.0.0.1:${port}`;
    metrics = `http://127.0.0.1:${metricsPort}`;
    await waitForStatus(`${api}/readyz`, (s) => s === 200, 20_000);
  }, 30_000);
  afterAll(async () => {
    expect(await proc.stop()).toBe(0);
  });

  it('PORT: the API and the probes; /metrics is 404 there, as problem details', async () => {
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
    expect((await fetch(`${api}/api/openapi.json`)).status).toBe(200);
    const res = await fetch(`${api}/metrics`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.text()).not.toContain('http_requests_total');
  });

  it('METRICS_PORT: the Prometheus text, counting the requests PORT answered', async () => {
    await fetch(`${api}/api/openapi.json`);
    const res = await fetch(`${metrics}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^http_requests_total\{method="GET",route="\/api\/openapi.json",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]\d*$/m);
    // The schema gate (issue 22): ready means serving, so the stored schema is not behind.
    expect(text).toMatch(/^entia_schema_behind 0$/m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
  });

  it('METRICS_PORT serves nothing else: not the API, not the probes', async () => {
    for (const path of ['/', '/healthz', '/readyz', '/api/openapi.json', '/api/auth']) {
      expect([path, (await fetch(`${metrics}${path}`)).status]).toEqual([path, 404]);
    }
    expect((await fetch(`${metrics}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});

describe('a METRICS_PORT that is taken', () => {
  let taken: Server;
  afterEach(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('stops the API at start (exit 1) instead of serving without metrics', async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const busy = (taken.address() as { port: number }).port;
    const proc = spawnService(API_MAIN, stackEnv({ PORT: String(await freePort()), METRICS_PORT: String(busy), LOG_LEVEL: 'fatal' }));
    try {
      const exited = await Promise.race([proc.exited, new Promise((resolve) => setTimeout(() => resolve('still running after 15 s'), 15_000))]);
      expect(exited).toBe(1);
    } finally {
      await proc.stop();
    }
  }, 30_000);
});
