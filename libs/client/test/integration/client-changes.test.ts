import { EntiaClient, type ChangeEvent } from '@entia/client';
import { createDatabase } from '@entia/entities';
import { randomBytes } from 'node:crypto';
import { eventually } from '../../../../services/api/test/eventually';
import { listening, testApi, type Listening, type TestApi } from '../../../../services/api/test/support';
import { stackConnected } from '../../../store/test/stack-reach';

// The client's `subscribe` (issue 18) over a real socket: it resumes by itself after the
// connection is cut, with nothing missed and nothing twice.
describe('client.db().subscribe against the real API', () => {
  jest.setTimeout(60_000);
  let api: TestApi;
  let server: Listening;
  let baseUrl: string;

  beforeAll(async () => {
    api = testApi();
    server = await listening(api.app);
    baseUrl = server.url;
  });
  afterAll(async () => {
    await server.close();
    await api.close();
  });

  it('delivers the changes a filter selects, resumes after a cut connection, and stops on close', async () => {
    await stackConnected(api.deps.store);
    const created = await createDatabase(api.deps.store, `c_${randomBytes(4).toString('hex')}`, 'Ada');
    const db = new EntiaClient({ baseUrl, apiKey: created.apiKey, db: created.db }).db();
    const type = (await db.createEntity([{ type: '_type', reference: created.types.entity }, { type: 'name', string: 'note' }])) as { _id: string };
    await db.createEntity([{ type: '_type', reference: created.types.property }, { type: '_parent', reference: type._id }, { type: 'name', string: 'title' }, { type: 'type', string: 'string' }]);

    const events: ChangeEvent[] = [];
    const notices: string[] = [];
    const subscription = db.subscribe({ '_type.reference': type._id }, (event) => events.push(event), { props: ['title'], onNotice: (notice) => notices.push(notice) });
    await eventually(async () => notices, (seen) => seen.includes('ready'));

    const note = async (title: string) => (await db.createEntity([{ type: '_type', reference: type._id }, { type: 'title', string: title }]))._id;
    const ids = [await note('first')];
    await eventually(async () => events.length, (n) => n === 1);
    // The connection is cut (a proxy restarting, the server's socket reset): changes go on meanwhile.
    server.server.closeAllConnections();
    for (let i = 0; i < 3; i++) ids.push(await note(`while cut ${i}`));
    ids.push(await note('after'));
    await eventually(async () => events.length, (n) => n >= 5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events.map((event) => event.entity)).toEqual(ids);
    const titles = events.map((event) => (event.values as Record<string, { string?: string }[]> | undefined)?.title?.[0]?.string);
    expect(titles).toEqual(['first', 'while cut 0', 'while cut 1', 'while cut 2', 'after']);
    expect(notices.filter((notice) => notice === 'ready').length).toBeGreaterThanOrEqual(2);
    expect(subscription.lastEventId).toBe(events[4]!.id);

    subscription.close();
    await subscription.done;
    await note('not seen');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events).toHaveLength(5);
  });
});
