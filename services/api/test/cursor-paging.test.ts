import { EntiaClient } from '@entia/client';
import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/**
 * Cursor paging and count modes of GET /api/{db}/entity (issue 21, "Paging that stays cheap"), on
 * the real stack: walking every page with `after` gives exactly the one big list, in every sort
 * order (ties, entities without a value, two keys in mixed directions, dates); inserts and
 * deletions between pages never repeat or drop an entity that exists throughout (unlike `skip`);
 * `count=none` runs no count; a forged or foreign cursor is a 400 or shows nothing new; each
 * cursor is its own cache entry; the SDK walks by cursor.
 */

interface Listed {
  _id: string;
  [property: string]: unknown;
}

describe('cursor paging (after, next) and count=exact|none', () => {
  let api: TestApi;
  let t: TestTenant;
  let reader: Person;
  let item: string;
  const commands: CommandStartedEvent[] = [];
  const N = 45;

  beforeAll(async () => {
    // The driver's command monitoring on the API's own client: the commands a list sends are counted, not guessed.
    api = testApi({ RATE_LIMIT_MAX: '1000000', MONGODB_COMMAND_METRICS: 'true' });
    api.deps.store.client.on('commandStarted', (event) => commands.push(event));
    t = await testTenant(api);
    reader = await t.newPerson('Reader');
    item = await t.defineType('item', [
      { name: 'rank', type: 'number' },
      { name: 'title', type: 'string' },
      { name: 'day', type: 'date' },
    ]);
    // Ties on every key, and entities without a value of each; every other one readable by `reader`.
    const values = (i: number) => [
      { type: '_type', reference: item },
      ...(i % 4 === 3 ? [] : [{ type: 'rank', number: (i % 3) + 1 }]),
      ...(i % 5 === 4 ? [] : [{ type: 'title', string: i % 2 === 0 ? `T${i % 6}` : `t${i % 6}` }]),
      ...(i % 7 === 6 ? [] : [{ type: 'day', date: `2024-0${1 + (i % 3)}-1${i % 5}` }]),
      ...(i % 2 === 0 ? [{ type: '_viewer', reference: reader.id }] : []),
    ];
    for (let i = 0; i < N; i += 9) {
      const created = await Promise.all(Array.from({ length: Math.min(9, N - i) }, (_, j) => t.create(values(i + j))));
      for (const res of created) if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const get = (query: string, as: Person = t.owner) => request(api.app).get(`/api/${t.db}/entity?${query}`).set('Authorization', as.auth);
  const post = (body: Record<string, string>, as: Person = t.owner) => request(api.app).post(`/api/${t.db}/entity/query`).set('Authorization', as.auth).send(body);
  const idsOf = (res: request.Response): string[] => res.body.entities.map((e: Listed) => e._id);

  /** Every match in one page (the reference sequence). */
  async function all(query: string, as: Person = t.owner): Promise<string[]> {
    const res = await get(`${query}&limit=1000`, as);
    expect(res.status).toBe(200);
    expect(res.body.next).toBeUndefined();
    return idsOf(res);
  }

  /** Every match, page after page by `after`; each page but the last full, the last without `next`. */
  async function walk(query: string, limit: number, as: Person = t.owner, between?: (page: number, seen: readonly string[]) => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; ; page++) {
      if (page > 200) throw new Error('the walk does not end');
      const res = await get(`${query}&limit=${limit}${after === undefined ? '' : `&after=${after}`}`, as);
      expect(res.status).toBe(200);
      seen.push(...idsOf(res));
      if (res.body.next === undefined) return seen;
      expect(res.body.entities).toHaveLength(limit);
      expect(res.body.next).toMatch(/^[A-Za-z0-9_-]+$/);
      after = res.body.next;
      await between?.(page, seen);
    }
  }

  describe('walking every page gives exactly the one big list', () => {
    it.each([
      ['the default order (_id)', ''],
      ['ascending, with ties and entities without a value', '&sort=rank.number'],
      ['descending, with ties and entities without a value', '&sort=-rank.number'],
      ['two keys in mixed directions', '&sort=rank.number,-title.string'],
      ['two keys, the first descending', '&sort=-title.string,day.date'],
      ['a date, descending', '&sort=-day.date'],
      ['a date, ascending', '&sort=day.date'],
      ['the creation time, newest first', '&sort=-_created.datetime'],
      ['a filter beside the sort', '&sort=-rank.number&rank.number.lte=2'],
    ])('%s', async (_, sort) => {
      const query = `_type.reference=${item}${sort}&count=none`;
      const expected = await all(query);
      if (sort.includes('lte')) expect(expected.length).toBeLessThan(N);
      else expect(expected).toHaveLength(N);
      for (const limit of [1, 6]) {
        const walked = await walk(query, limit);
        expect(new Set(walked).size).toBe(walked.length);
        expect(walked).toEqual(expected);
      }
    });

    it('orders entities without a value first ascending and last descending (as MongoDB does)', async () => {
      const ranks = async (sort: string) => {
        const res = await get(`_type.reference=${item}&sort=${sort}&limit=1000&props=rank`);
        return res.body.entities.map((e: { rank?: { number: number }[] }) => e.rank?.[0]?.number ?? null);
      };
      const ascending = await ranks('rank.number');
      const missing = ascending.filter((rank: number | null) => rank === null).length;
      expect(missing).toBeGreaterThan(0);
      expect(ascending.slice(0, missing)).toEqual(Array(missing).fill(null));
      expect(ascending.slice(missing)).toEqual([...ascending.slice(missing)].sort());
      const descending = await ranks('-rank.number');
      expect(descending.slice(N - missing)).toEqual(Array(missing).fill(null));
    });

    it('with props, and without: the sort keys a cursor needs are read but never shown', async () => {
      const query = `_type.reference=${item}&sort=-rank.number,title.string`;
      expect(await walk(`${query}&props=day`, 6)).toEqual(await all(query));
      const withProps = await get(`${query}&props=day&limit=3`);
      for (const entity of withProps.body.entities as Listed[]) expect(Object.keys(entity).every((key) => key === '_id' || key === 'day')).toBe(true);
      const plain = await get(`${query}&limit=3`);
      for (const entity of plain.body.entities as Listed[]) expect(Object.keys(entity).filter((key) => key.startsWith('__'))).toEqual([]);
    });

    it('a page is followed by next only when more matches follow it', async () => {
      const query = `_type.reference=${item}&sort=day.date`;
      expect((await get(`${query}&limit=${N}`)).body.next).toBeUndefined();
      expect((await get(`${query}&limit=${N - 1}`)).body.next).toEqual(expect.any(String));
      expect((await get(`${query}&limit=0`)).body).toEqual({ entities: [], count: N, limit: 0, skip: 0 });
    });

    it('a page reached by skip has a next too, and after it the walk goes on', async () => {
      const query = `_type.reference=${item}&sort=-title.string`;
      const expected = await all(query);
      const first = await get(`${query}&skip=5&limit=6`);
      expect(idsOf(first)).toEqual(expected.slice(5, 11));
      const rest = await walk(`${query}`, 8, t.owner);
      expect(rest).toEqual(expected);
      const second = await get(`${query}&limit=6&after=${first.body.next}`);
      expect(idsOf(second)).toEqual(expected.slice(11, 17));
      expect(second.body).toMatchObject({ count: N, skip: 0, limit: 6 });
    });

    it('the body route (POST /entity/query) pages the same way', async () => {
      const body = { '_type.reference': item, sort: 'rank.number,-day.date', limit: '10', count: 'none' };
      const expected = await all(`_type.reference=${item}&sort=rank.number,-day.date`);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const res = await post({ ...body, ...(after === undefined ? {} : { after }) });
        expect(res.status).toBe(200);
        expect(res.body).not.toHaveProperty('count');
        seen.push(...idsOf(res));
        if (!res.body.next) break;
        after = res.body.next;
      }
      expect(seen).toEqual(expected);
    });
  });

  describe('count=exact|none', () => {
    it('count=exact (the default) counts every match on every page; count=none leaves count out', async () => {
      const query = `_type.reference=${item}&sort=rank.number&limit=5`;
      const first = await get(query);
      expect(first.body).toMatchObject({ count: N, limit: 5, skip: 0 });
      expect((await get(`${query}&count=exact`)).body).toEqual(first.body);
      const after = await get(`${query}&after=${first.body.next}`);
      expect(after.body.count).toBe(N);
      const none = await get(`${query}&count=none`);
      expect(none.body).not.toHaveProperty('count');
      expect(none.body).toEqual({ entities: first.body.entities, limit: 5, skip: 0, next: first.body.next });
      expect((await get(`${query}&count=none&after=${first.body.next}`)).body).toEqual({ ...after.body, count: undefined });
    });

    it('count=none sends one find and no count; count=exact one find and one count (the driver sends countDocuments as aggregate)', async () => {
      const body = { '_type.reference': item, sort: '-rank.number', limit: '5' };
      await post(body); // the schema cache is warm: what follows is the list's own reads
      const counted = async (extra: Record<string, string>) => {
        commands.length = 0;
        const res = await post({ ...body, ...extra });
        expect(res.status).toBe(200);
        return commands.filter((command) => command.databaseName === t.db).map((command) => command.commandName).sort();
      };
      expect(await counted({ count: 'none' })).toEqual(['find']);
      expect(await counted({ count: 'exact' })).toEqual(['aggregate', 'find']);
      expect(await counted({})).toEqual(['aggregate', 'find']);
      const next = (await post({ ...body, count: 'none' })).body.next as string;
      expect(await counted({ count: 'none', after: next })).toEqual(['find']);
    });
  });

  describe('stable under inserts and deletions between pages', () => {
    let row: string;
    beforeAll(async () => {
      row = await t.defineType('row', [{ name: 'rank', type: 'number' }]);
    });

    const createRow = async (rank: number | undefined) => {
      const res = await t.create([{ type: '_type', reference: row }, ...(rank === undefined ? [] : [{ type: 'rank', number: rank }])]);
      expect(res.status).toBe(201);
      return res.body._id as string;
    };
    const remove = async (id: string) => expect((await request(api.app).delete(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).status).toBe(200);

    it.each([['rank.number'], ['-rank.number'], ['']])('sort=%s: every entity that exists throughout is read exactly once', async (sort) => {
      const initial: string[] = [];
      for (let i = 0; i < 20; i++) initial.push(await createRow(i % 5 === 4 ? undefined : i % 3));
      const query = `_type.reference=${row}${sort === '' ? '' : `&sort=${sort}`}&count=none`;
      const before = await all(query);
      const deleted = new Set<string>();
      const deletedUnread = new Set<string>();
      const walked = await walk(query, 4, t.owner, async (page, seen) => {
        if (page >= 4) return;
        // Before the cursor and after it, ties and values missing: new entities land everywhere.
        await createRow(0);
        await createRow(2);
        await createRow(undefined);
        // One already read, and one not read yet.
        const read = seen[seen.length - 1]!;
        const unread = [...before].reverse().find((id) => !seen.includes(id) && !deleted.has(id))!;
        for (const id of [read, unread]) {
          await remove(id);
          deleted.add(id);
        }
        deletedUnread.add(unread);
      });
      expect(new Set(walked).size).toBe(walked.length);
      const throughout = before.filter((id) => !deleted.has(id));
      expect(walked.filter((id) => throughout.includes(id))).toEqual(throughout);
      for (const id of deletedUnread) expect(walked).not.toContain(id);
      for (const id of (await all(query))) await remove(id);
    }, 120_000);

    it('skip, by contrast, drops an entity when one before it is deleted between pages', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await createRow(i));
      const query = `_type.reference=${row}&sort=rank.number&limit=4`;
      const first = idsOf(await get(`${query}&skip=0`));
      await remove(first[0]!);
      const second = idsOf(await get(`${query}&skip=4`));
      expect(second[0]).toBe(ids[5]); // ids[4] was skipped over
      const cursorFirst = await get(`${query}&skip=0`);
      await remove(idsOf(cursorFirst)[0]!);
      expect(idsOf(await get(`${query}&after=${cursorFirst.body.next}`))[0]).toBe(ids[5]);
      expect(idsOf(cursorFirst)).toEqual(ids.slice(1, 5));
    });
  });

  describe('hostile and malformed: 400 naming the parameter, never 500', () => {
    const base = () => `_type.reference=${item}&sort=rank.number`;
    const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const ID = '5f1d7a0c9b1e8a0012345678';

    async function expectParameter(res: request.Response, parameter: string) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter })]));
      expect(res.text).not.toMatch(/\n\s+at |node_modules/);
    }

    it.each([
      ['garbage', '!!garbage!!'],
      ['base64 of non-JSON', b64('not json at all')],
      ['wrong types', b64(JSON.stringify({ s: 'rank.number', k: ['1'], i: ID }))],
      ['an operator object as a value', b64(JSON.stringify({ s: 'rank.number', k: [{ $gt: 1 }], i: ID }))],
      ['an operator object as the id', b64(JSON.stringify({ s: 'rank.number', k: [1], i: { $ne: null } }))],
      ['__proto__ as a key', b64(`{"s":"rank.number","k":[1],"i":"${ID}","__proto__":{"x":1}}`)],
      ['__proto__ inside a value', b64(`{"s":"rank.number","k":[{"__proto__":{"x":1}}],"i":"${ID}"}`)],
      ['a cursor made for another sort', b64(JSON.stringify({ s: '-rank.number', k: [1], i: ID }))],
      ['an empty cursor', ''],
    ])('after: %s', async (_, after) => {
      await expectParameter(await get(`${base()}&after=${encodeURIComponent(after)}`), 'after');
      await expectParameter(await post({ '_type.reference': item, sort: 'rank.number', after }), 'after');
    });

    it('a real cursor of another sort, too long a cursor, after with skip', async () => {
      const other = (await get(`_type.reference=${item}&sort=-day.date&limit=2`)).body.next as string;
      await expectParameter(await get(`${base()}&after=${other}`), 'after');
      await expectParameter(await post({ '_type.reference': item, sort: 'rank.number', after: 'A'.repeat(100_000) }), 'after');
      const next = (await get(`${base()}&limit=2`)).body.next as string;
      await expectParameter(await get(`${base()}&after=${next}&skip=5`), 'after');
      expect((await get(`${base()}&after=${next}&skip=0`)).status).toBe(200);
    });

    it('count=maybe, count given twice, after given twice', async () => {
      await expectParameter(await get(`${base()}&count=maybe`), 'count');
      await expectParameter(await get(`${base()}&count=none&count=none`), 'count');
      await expectParameter(await post({ '_type.reference': item, count: 'maybe' }), 'count');
      const next = (await get(`${base()}&limit=2`)).body.next as string;
      await expectParameter(await get(`${base()}&after=${next}&after=${next}`), 'after');
    });

    it('another database\'s cursor, or one naming an entity the caller cannot read, shows nothing it could not see anyway', async () => {
      const other = await testTenant(api);
      try {
        const foreignType = await other.defineType('thing', [{ name: 'rank', type: 'number' }]);
        for (let i = 0; i < 3; i++) await other.create([{ type: '_type', reference: foreignType }, { type: 'rank', number: 2 }]);
        const foreign = await request(api.app).get(`/api/${other.db}/entity?_type.reference=${foreignType}&sort=rank.number&limit=1`).set('Authorization', other.owner.auth);
        const ownerAll = await all(base());
        const page = await get(`${base()}&limit=1000&after=${foreign.body.next}`);
        expect(page.status).toBe(200);
        // A position in this database's order, nothing more: a tail of what the caller reads anyway.
        expect(ownerAll.slice(ownerAll.length - page.body.entities.length)).toEqual(idsOf(page));
      } finally {
        await other.close();
      }

      const ownerAll = await all(base());
      const readerAll = await all(base(), reader);
      expect(readerAll.length).toBeLessThan(ownerAll.length);
      // The owner's page ending on an entity the reader cannot read; its cursor, used by the reader.
      const hidden = ownerAll.findIndex((id, n) => n > 5 && !readerAll.includes(id));
      const owners = await get(`${base()}&limit=${hidden + 1}`);
      expect(idsOf(owners).at(-1)).toBe(ownerAll[hidden]);
      const readers = await get(`${base()}&limit=1000&after=${owners.body.next}`, reader);
      expect(idsOf(readers)).toEqual(readerAll.filter((id) => ownerAll.indexOf(id) > hidden));
      expect(readers.body.count).toBe(readerAll.length);
    });
  });

  it('the response cache keeps each cursor apart: a page is never served for another cursor', async () => {
    const query = `_type.reference=${item}&sort=-rank.number,day.date&limit=5`;
    const expected = await all(`_type.reference=${item}&sort=-rank.number,day.date`);
    const first = await get(query);
    const second = await get(`${query}&after=${first.body.next}`);
    const third = await get(`${query}&after=${second.body.next}`);
    for (let round = 0; round < 2; round++) {
      expect(idsOf(await get(`${query}&after=${first.body.next}`))).toEqual(expected.slice(5, 10));
      expect(idsOf(await get(`${query}&after=${second.body.next}`))).toEqual(expected.slice(10, 15));
      expect(idsOf(await get(`${query}&after=${second.body.next}&count=none`))).toEqual(expected.slice(10, 15));
    }
    expect(second.headers.etag).not.toBe(third.headers.etag);
    expect((await get(`${query}&after=${second.body.next}&count=none`)).body).not.toHaveProperty('count');
    expect((await get(`${query}&after=${second.body.next}`)).body.count).toBe(N);
  });

  it('the SDK walks every page by cursor, and is not thrown off by an insert in the middle', async () => {
    const client = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db });
    const db = client.db();
    const query = { '_type.reference': item, sort: ['-rank.number', 'title.string'] };
    const expected = await all(`_type.reference=${item}&sort=-rank.number,title.string`);
    const seen: string[] = [];
    let inserted: string | undefined;
    for await (const entity of db.iterateEntities({ ...query, limit: 4 })) {
      seen.push(entity._id);
      if (seen.length === 6) {
        // Sorts first (rank 3 is the largest): before the walk's position, so not read now.
        const res = await t.create([{ type: '_type', reference: item }, { type: 'rank', number: 3 }, { type: 'title', string: 'A' }]);
        inserted = res.body._id;
      }
    }
    expect(seen).toEqual(expected);
    // The typed layer's pages carry next, and take after.
    const page = await db.type('item').list({ sort: '-rank', limit: 10 });
    expect(page.next).toEqual(expect.any(String));
    const rest = await db.type('item').list({ sort: '-rank', limit: 1000, after: page.next! });
    expect([...page.items, ...rest.items].map((o) => o._id)).toEqual(await all(`_type.reference=${item}&sort=-rank.number`));
    await request(api.app).delete(`/api/${t.db}/entity/${inserted}`).set('Authorization', t.owner.auth);
  });
});
