import { healthServer, startWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi } from './support';

// /healthz is what an orchestrator restarts a process for: it must fail for a state the process
// cannot leave by itself, and for nothing else. Outages are not such a state (the connections
// recover by themselves: late-dependencies.test.ts, outage.test.ts); a connection closed under a
// running process is, and so is a worker whose job loop ended without a shutdown.
describe('liveness fails only for a state that cannot heal', () => {
  it('the API: 200 while its connections can serve; 503 naming each one closed under it', async () => {
    const api = testApi();
    try {
      expect((await request(api.app).get('/healthz')).body).toEqual({ status: 'ok' });
      await api.deps.store.whenConnected();

      // What the MongoDB driver did to a client whose first connect failed, before issue 31.
      await api.deps.store.client.close();
      const mongo = await request(api.app).get('/healthz');
      expect({ status: mongo.status, stuck: mongo.body.stuck }).toEqual({ status: 503, stuck: { mongodb: 'the MongoDB client was closed while in use' } });

      api.deps.redis.disconnect();
      await eventually(async () => (await request(api.app).get('/healthz')).body.stuck, (stuck) => stuck?.redis !== undefined, 5000);
      const both = await request(api.app).get('/healthz');
      expect(both.status).toBe(503);
      expect(both.body).toMatchObject({ type: 'urn:entia:problem:unavailable', detail: 'stuck: mongodb, redis; restart the process' });
    } finally {
      await api.close();
    }
  });

  it('the worker: 200 while it takes jobs; 503 once its job loop has ended without a shutdown', async () => {
    const api = testApi();
    const worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    const health = healthServer(worker);
    try {
      await eventually(() => worker.readiness(), (readiness) => readiness.ready, 20_000);
      expect((await request(health).get('/healthz')).body).toEqual({ status: 'ok' });

      // BullMQ's own close, not the worker's shutdown: no job would ever run again.
      await worker.worker.close();
      const stuck = await eventually(() => request(health).get('/healthz'), (res) => res.status === 503, 5000);
      expect(stuck.body).toEqual({ status: 'stuck', stuck: { jobs: 'the job loop ended without a shutdown' } });
    } finally {
      await worker.close();
      await api.close();
    }
    // Its own shutdown is not stuck: alive until it exits.
    expect(worker.stuck()).toEqual({});
  });
});
