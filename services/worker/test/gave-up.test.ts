import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import { eventually } from '../../api/test/eventually';
import { testApi, type TestApi } from '../../api/test/support';
import { testTenant, type TestTenant } from '../../api/test/tenant';

// BullMQ reports every failed attempt; a job that used its last one is an event of its own: one
// error line naming what it was about and why, and a count an alert can watch.
describe('a job that exhausts its attempts', () => {
  let api: TestApi;
  let t: TestTenant;
  let worker: RunningWorker;
  const lines: Array<{ level: number; msg: string; name?: string; db?: string; entity?: string; reason?: string }> = [];

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    worker = startWorker(api.deps.config, pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }));
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.close();
  });

  const givenUp = async () => (await worker.registry.getSingleMetric('entia_jobs_given_up_total')!.get()).values.find((v) => v.labels.name === 'settle')?.value ?? 0;

  it('logs one "gave up" line with its entity and reason, and counts in entia_jobs_given_up_total', async () => {
    // An entity id no settle can read: every attempt fails the same way.
    await api.deps.jobs.enqueue('settle', { db: t.db, entity: 'not-an-entity', depth: 0 }, undefined, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
    await eventually(givenUp, (count) => count === 1);
    const about = lines.filter((line) => line.entity === 'not-an-entity' || /job failed/.test(line.msg));
    expect(about.map((line) => [line.level, line.msg])).toEqual([
      [40, 'job failed; it is tried again'],
      [50, 'settle job gave up'],
    ]);
    expect(about[1]).toMatchObject({ name: 'settle', db: t.db, entity: 'not-an-entity', reason: expect.stringMatching(/\S/) });
    expect(await givenUp()).toBe(1);
  });
});
