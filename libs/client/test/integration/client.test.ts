import { EntiaClient, EntiaError, valuesOf } from '@entia/client';
import { createDatabase } from '@entia/entities';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { testApi, type TestApi } from '../../../../services/api/test/support';
import { stackConnected } from '../../../store/test/stack-reach';

// The README's walkthrough, driven through the TypeScript client over a real socket.
describe('the client against the real API', () => {
  let api: TestApi;
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    api = testApi();
    await stackConnected(api.deps.store);
    server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  it('create a database, define a type, create, read, change and delete an entity', async () => {
    const created = await createDatabase(api.deps.store, `c_${randomBytes(4).toString('hex')}`, 'Ada');
    const client = new EntiaClient({ baseUrl, apiKey: created.apiKey, db: created.db });
    const { accounts } = await client.auth();
    expect(accounts).toEqual([{ _id: created.db, name: created.db, user: { _id: created.personId, name: 'Ada' } }]);
    const db = client.db();

    const book = await db.createEntity([
      { type: '_type', reference: created.types.entity },
      { type: 'name', string: 'book' },
      { type: '_sharing', string: 'domain' },
    ]);
    await db.createEntity([
      { type: '_type', reference: created.types.property },
      { type: '_parent', reference: book._id },
      { type: 'name', string: 'title' },
      { type: 'type', string: 'string' },
    ]);

    const dune = await db.createEntity([{ type: '_type', reference: book._id }, { type: 'title', string: 'Dune' }]);
    expect(valuesOf((await db.getEntity(dune._id)).entity, 'title')[0]).toMatchObject({ string: 'Dune' });

    const first = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const changed = await db.addValues(dune._id, [{ type: 'title', string: 'Dune Messiah' }]);
    expect(changed.properties).toEqual([expect.objectContaining({ type: 'title', string: 'Dune Messiah' })]);
    const title = valuesOf((await db.getEntity(dune._id, { props: ['title'] })).entity, 'title');
    expect(title.map((v) => v.string)).toEqual(['Dune Messiah']);
    expect(await db.getProperty(title[0]!._id)).toMatchObject({ string: 'Dune Messiah' });
    // Its history, and the entity as it was before the change.
    const history = await db.history(dune._id, { limit: 1 });
    expect(history.changes).toEqual([expect.objectContaining({ type: 'title', by: created.personId, old: expect.objectContaining({ string: 'Dune' }), new: expect.objectContaining({ string: 'Dune Messiah' }) })]);
    expect(history.count).toBeGreaterThan(1);
    expect(valuesOf((await db.getEntity(dune._id, { at: first })).entity, 'title').map((v) => v.string)).toEqual(['Dune']);

    expect(await db.deleteEntity(dune._id)).toEqual({ deleted: true });
    const gone = await db.getEntity(dune._id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(EntiaError);
    expect((gone as EntiaError).status).toBe(404);
  });

  it('a 4xx comes back as an EntiaError with the problem, not retried', async () => {
    const created = await createDatabase(api.deps.store, `c_${randomBytes(4).toString('hex')}`, 'Ada');
    const db = new EntiaClient({ baseUrl, apiKey: created.apiKey, db: created.db }).db();
    const error = (await db.createEntity([{ type: 'name', string: 'no type' }]).catch((e: unknown) => e)) as EntiaError;
    expect(error.status).toBe(400);
    expect(error.problem?.type).toBe('urn:entia:problem:invalid-request');
    expect(error.requestId).toMatch(/./);
  });

  it('an unknown key is refused at the exchange', async () => {
    const db = new EntiaClient({ baseUrl, apiKey: 'x'.repeat(43), db: 'whatever' }).db();
    await expect(db.getEntity('aaaaaaaaaaaaaaaaaaaaaaaa')).rejects.toMatchObject({ status: 401 });
  });
});
