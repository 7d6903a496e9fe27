import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type Person, type TestTenant } from './tenant';

/**
 * SPEC §6: "A list or `q` never returns, counts or matches an entity the caller cannot read."
 * Private, viewer-shared, editor-shared, domain and public entities, read by an anonymous caller,
 * a signed-in person of the database without rights, a `_viewer`, the owner, the author of a
 * private entity of their own, and a person of another database.
 */

type Caller = 'anonymous' | 'member' | 'viewer' | 'owner' | 'author';

describe('GET /api/{db}/entity: visibility in lists, count and q (SPEC §6, §7)', () => {
  let api: TestApi;
  let t: TestTenant;
  let other: TestTenant;
  let memo: string;
  let member: Person;
  let viewer: Person;
  let author: Person;
  let foreigner: Person;
  const ids: Record<string, string> = {};

  /** Which memo (by title suffix) each caller may read. */
  const READS: Record<Caller, string[]> = {
    anonymous: ['public'],
    member: ['domain', 'public'],
    viewer: ['shared', 'edited', 'domain', 'public'],
    owner: ['private', 'shared', 'edited', 'domain', 'public'],
    author: ['personal', 'domain', 'public'],
  };
  const CALLERS = Object.keys(READS) as Caller[];

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
    memo = await t.defineType('memo', [
      { name: 'title', type: 'string', search: true },
      { name: 'kind', type: 'string' },
      { name: 'n', type: 'number' },
    ]);
    [member, viewer, author] = await Promise.all([t.newPerson('Member'), t.newPerson('Viewer'), t.newPerson('Author')]);
    foreigner = await other.newPerson('Foreigner');
    const make = async (suffix: string, extra: object[], by: Person = t.owner) => {
      const res = await t.create(
        [{ type: '_type', reference: memo }, { type: 'title', string: `zebra ${suffix}` }, { type: 'kind', string: suffix }, { type: 'n', number: 1 }, ...extra],
        by,
      );
      if (res.status !== 201) throw new Error(`${suffix}: ${res.status} ${JSON.stringify(res.body)}`);
      ids[suffix] = res.body._id;
    };
    await Promise.all([
      make('private', []),
      make('shared', [{ type: '_viewer', reference: viewer.id }]),
      make('edited', [{ type: '_editor', reference: viewer.id }]),
      make('domain', [{ type: '_sharing', string: 'domain' }]),
      make('public', [{ type: '_sharing', string: 'public' }]),
      make('personal', [], author),
    ]);
  });
  afterAll(async () => {
    await Promise.all([t.close(), other.close()]);
    await api.close();
  });

  const as = (caller: Caller): Person | undefined =>
    caller === 'anonymous' ? undefined : { member, viewer, owner: t.owner, author }[caller];
  const list = (query: string, by: Person | undefined, db = t.db) => {
    const req = request(api.app).get(`/api/${db}/entity?${query}`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  const memos = (query: string, caller: Caller) => list(`_type.reference=${memo}&${query}`, as(caller));
  const suffixes = (res: request.Response): string[] =>
    res.body.entities.map((e: { title: { string: string }[] }) => e.title[0]!.string.replace(/^zebra /, '')).sort();
  const sorted = (list: string[]) => [...list].sort();

  /** The answer lists exactly `expected` (by title suffix) and counts exactly them. */
  function expectExactly(res: request.Response, expected: string[]): void {
    expect(res.status).toBe(200);
    expect(suffixes(res)).toEqual(sorted(expected));
    expect(res.body.count).toBe(expected.length);
  }

  it.each(CALLERS)('%s: the list, its count and limit=0 hold exactly what they may read', async (caller) => {
    const [all, counted] = await Promise.all([memos('', caller), memos('limit=0', caller)]);
    expectExactly(all, READS[caller]);
    expect(counted.body).toEqual({ entities: [], count: READS[caller].length, limit: 0, skip: 0 });
  });

  it.each(CALLERS)('%s: q matches only what they may read', async (caller) => {
    const [all, one, withType, paged] = await Promise.all([
      list(`q=zebra`, as(caller)),
      list(`q=zeb+private`, as(caller)),
      memos('q=ZEBRA', caller),
      memos('q=zebra&limit=1&sort=title.string', caller),
    ]);
    expectExactly(all, READS[caller]);
    expectExactly(one, READS[caller].includes('private') ? ['private'] : []);
    expectExactly(withType, READS[caller]);
    expect(paged.body.count).toBe(READS[caller].length);
    expect(paged.body.entities).toHaveLength(1);
  });

  it.each(CALLERS)('%s: filters and sorts never reach past visibility', async (caller) => {
    const [byKind, regex, numbers, sortedRes, notPublic, byOwner] = await Promise.all([
      memos('kind.string.in=private,shared,edited,domain,public,personal', caller),
      memos('title.string.regex=/^zebra/', caller),
      memos('n.number.gte=0&sort=-title.string', caller),
      memos('sort=kind.string&limit=2&skip=1', caller),
      memos('_sharing.string.exists=false', caller),
      memos(`_owner.reference=${t.owner.id}`, caller),
    ]);
    expectExactly(byKind, READS[caller]);
    expectExactly(regex, READS[caller]);
    expectExactly(numbers, READS[caller]);
    expect(sortedRes.body.count).toBe(READS[caller].length);
    expect(suffixes(sortedRes)).toEqual(sorted(READS[caller]).slice(1, 3).sort());
    // Entities without _sharing are private: only those the caller holds a right on.
    const privates = READS[caller].filter((s) => s !== 'domain' && s !== 'public');
    expect(notPublic.body.count).toBeLessThanOrEqual(privates.length);
    for (const suffix of suffixes(notPublic)) expect(privates).toContain(suffix);
    for (const suffix of suffixes(byOwner)) expect(READS[caller]).toContain(suffix);
    expect(byOwner.body.count).toBe(READS[caller].filter((s) => s !== 'personal').length);
  });

  it('an anonymous caller listing the whole database sees public entities only', async () => {
    const [all, searched] = await Promise.all([list('limit=1000', undefined), list('q=zebra&limit=1000', undefined)]);
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(all.body.entities.length);
    for (const entity of all.body.entities as { _sharing?: { string: string }[] }[]) expect(entity._sharing?.[0]?.string).toBe('public');
    expect(all.body.entities.map((e: { _id: string }) => e._id)).toContain(ids.public);
    expectExactly(searched, ['public']);
  });

  it('a signed-in member listing the whole database never sees a private entity without a right', async () => {
    const res = await list('limit=1000', member);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(res.body.entities.length);
    const seen = new Set(res.body.entities.map((e: { _id: string }) => e._id));
    for (const hidden of ['private', 'shared', 'edited', 'personal']) expect(seen.has(ids[hidden])).toBe(false);
    for (const entity of res.body.entities as { _sharing?: { string: string }[]; _owner?: { reference: string }[]; _viewer?: { reference: string }[] }[]) {
      const sharing = entity._sharing?.[0]?.string ?? 'private';
      if (sharing === 'private') {
        // Only entities the member holds a right on (their own person entity is owned by the db owner).
        const holders = ['_owner', '_editor', '_expander', '_viewer'].flatMap((name) =>
          ((entity as Record<string, { reference: string }[] | undefined>)[name] ?? []).map((v) => v.reference),
        );
        expect(holders).toContain(member.id);
      }
    }
  });

  it('a person of another database reads nothing here: 403, their token does not grant this database', async () => {
    for (const query of [`_type.reference=${memo}`, 'q=zebra', 'limit=0']) {
      const res = await list(query, foreigner);
      expect({ query, status: res.status, type: res.body.type }).toEqual({ query, status: 403, type: 'urn:entia:problem:wrong-database' });
    }
  });

  it('the foreign database does not see this one’s entities either', async () => {
    const res = await list(`q=zebra`, other.owner, other.db);
    expectExactly(res, []);
  });

  it('rights and sharing changes show at once in lists, counts and q', async () => {
    const created = await t.create([
      { type: '_type', reference: memo },
      { type: 'title', string: 'zebra moving' },
      { type: 'kind', string: 'moving' },
    ]);
    expect(created.status).toBe(201);
    const id = created.body._id as string;
    const seenBy = async (by: Person | undefined) => {
      const [byList, byQ] = await Promise.all([
        list(`_type.reference=${memo}&kind.string=moving`, by),
        list(`q=zebra+moving`, by),
      ]);
      expect(byList.body.count).toBe(byQ.body.count);
      return byList.body.count as number;
    };
    expect([await seenBy(undefined), await seenBy(member), await seenBy(viewer), await seenBy(t.owner)]).toEqual([0, 0, 0, 1]);

    const shared = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: '_viewer', reference: viewer.id }]);
    expect(shared.status).toBe(200);
    expect([await seenBy(undefined), await seenBy(member), await seenBy(viewer)]).toEqual([0, 0, 1]);

    const domain = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: '_sharing', string: 'domain' }]);
    expect(domain.status).toBe(200);
    expect([await seenBy(undefined), await seenBy(member), await seenBy(viewer)]).toEqual([0, 1, 1]);

    const open = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: '_sharing', string: 'public' }]);
    expect(open.status).toBe(200);
    expect([await seenBy(undefined), await seenBy(member), await seenBy(viewer)]).toEqual([1, 1, 1]);

    const closed = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: '_sharing', string: 'private' }]);
    expect(closed.status).toBe(200);
    expect([await seenBy(undefined), await seenBy(member), await seenBy(viewer)]).toEqual([0, 0, 1]);

    const value = writtenOf(shared.body, '_viewer')[0]!._id;
    const revoked = await request(api.app).delete(`/api/${t.db}/property/${value}`).set('Authorization', t.owner.auth);
    expect(revoked.status).toBe(200);
    expect([await seenBy(undefined), await seenBy(member), await seenBy(viewer), await seenBy(t.owner)]).toEqual([0, 0, 0, 1]);
  });
});
