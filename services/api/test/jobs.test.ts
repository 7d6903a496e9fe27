import { EntiaClient } from '@entia/client';
import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApi, type TestApi } from './support';

describe('a job round trip: API → Redis → worker → Redis → API', () => {
  let api: TestApi;
  let server: Server;
  let worker: RunningWorker | undefined;
  let client: EntiaClient;

  beforeAll(async () => {
    api = testApi();
    server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    client = new EntiaClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await worker?.close();
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  it('a job scheduled while no worker runs waits, then is processed once a worker starts', async () => {
    const { id } = await client.schedulePing('hello');
    expect((await client.job(id)).state).toBe('waiting');

    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    const done = await client.waitForJob(id, 20_000);
    expect(done.state).toBe('completed');
    expect(done.result).toMatchObject({ message: 'hello', worker: expect.stringMatching(/:\d+$/) });
  });

  it('an unknown job id answers 404', async () => {
    await expect(client.job('999999999')).rejects.toMatchObject({ status: 404 });
  });

  it('the worker reports itself ready and exposes job metrics', async () => {
    await expect(worker!.ready()).resolves.toBeUndefined();
    const text = await worker!.registry.metrics();
    expect(text).toMatch(/entia_job_duration_seconds_count\{name="ping",outcome="completed"\} 1/);
    expect(text).toMatch(/entia_queue_jobs\{state="waiting"\} 0/);
  });
});
