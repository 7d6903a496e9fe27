import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from '../../api/test/eventually';
import { testApi, type TestApi } from '../../api/test/support';
import { testTenant, writtenOf, type TestTenant } from '../../api/test/tenant';

// A definition's `search` flag decides what `q` finds; the worker re-indexes the type's entities.
describe('changing a definition re-indexes its entities (worker)', () => {
  jest.setTimeout(90_000);

  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.close();
  });

  async function countFor(type: string, q: string): Promise<number> {
    const res = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${type}&q=${q}&limit=0`).set('Authorization', t.owner.auth);
    expect(res.status).toBe(200);
    return res.body.count as number;
  }

  it('search: false → true makes existing values findable, true → false hides them again', async () => {
    const type = await t.defineType('memo', [{ name: 'body', type: 'text' }]);
    for (const body of ['Zanzibar harbour', 'zanzibar spice', 'elsewhere']) {
      expect((await t.create([{ type: '_type', reference: type }, { type: 'body', string: body }])).status).toBe(201);
    }
    expect(await countFor(type, 'zanz')).toBe(0);

    const definitions = await request(api.app)
      .get(`/api/${t.db}/entity?_type.reference=${t.types.property}&_parent.reference=${type}&name.string=body`)
      .set('Authorization', t.owner.auth);
    const definition = definitions.body.entities[0]._id as string;
    const on = await request(api.app).post(`/api/${t.db}/entity/${definition}`).set('Authorization', t.owner.auth).send([{ type: 'search', boolean: true }]);
    expect(on.status).toBe(200);
    await eventually(() => countFor(type, 'zanz'), (count) => count === 2);

    const flag = writtenOf(on.body, 'search')[0]!._id;
    expect((await request(api.app).delete(`/api/${t.db}/property/${flag}`).set('Authorization', t.owner.auth)).status).toBe(200);
    await eventually(() => countFor(type, 'zanz'), (count) => count === 0);
  });
});
