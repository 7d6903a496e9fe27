import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

type Value = Record<string, any> & { _id: string };
type Entity = Record<string, any> & { _id: string };

/**
 * Every request shape of the core loop of Entu's web client (entu/webapp at da390bf: the menu,
 * type definitions, plugins, add-from, child lists, referrers, the reference picker, the search
 * modal, the drawers, the edit form's POSTs and the statistics), sent as the client sends it, each
 * answer asserted as the client reads it: what its code dereferences must be there (issue 32). The
 * R-numbers are those of the request catalogue in docs/entu.md.
 */
describe("Entu's web client: every request of its core loop, answered as it reads them", () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let reader: Person;
  const id: Record<string, string> = {};

  /** `getValue(list, field)` of the client: the first value's field. */
  const valueOf = (list: Value[] | undefined, field = 'string'): unknown => list?.[0]?.[field];

  async function created(values: object[]): Promise<string> {
    const res = await t.create(values);
    if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body._id as string;
  }

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    reader = await t.newPerson('Rita Reader');
    // What an Entu database holds for its client: a menu, a plugin, types with their definitions.
    id.menu = await t.defineType('menu', [
      { name: 'name', type: 'string' },
      { name: 'group', type: 'string' },
      { name: 'ordinal', type: 'number' },
      { name: 'query', type: 'string' },
    ]);
    id.plugin = await t.defineType('plugin', [
      { name: 'name', type: 'string' },
      { name: 'type', type: 'string' },
      { name: 'url', type: 'string' },
      { name: 'new_window', type: 'boolean' },
    ]);
    id.folder = await t.defineType('folder', [{ name: 'name', type: 'string', search: true }]);
    id.book = await t.defineType('book', [
      { name: 'name', type: 'string', search: true },
      { name: 'author', type: 'reference' },
      { name: 'year', type: 'number' },
      { name: 'published', type: 'date' },
      { name: 'seen', type: 'datetime' },
      { name: 'tags', type: 'string', list: true },
      { name: 'photo', type: 'file' },
      { name: 'title', type: 'string', multilingual: true },
    ]);
    await created([{ type: '_type', reference: id.menu }, { type: 'name', string: 'Books' }, { type: 'group', string: 'Library' }, { type: 'ordinal', number: 1 }, { type: 'query', string: '_type.string=book&sort=name.string' }, { type: '_sharing', string: 'domain' }]);
    await created([{ type: '_type', reference: id.plugin }, { type: 'name', string: 'Preview' }, { type: 'type', string: 'entity-edit' }, { type: 'url', string: 'https://plugins.example/preview' }, { type: 'new_window', boolean: true }]);
    id.austen = await created([{ type: '_type', reference: t.types.person }, { type: 'name', string: 'Jane Austen' }, { type: '_sharing', string: 'domain' }]);
    id.shelf = await created([{ type: '_type', reference: id.folder }, { type: 'name', string: 'Shelf' }, { type: '_sharing', string: 'domain' }]);
    id.emma = await created([
      { type: '_type', reference: id.book },
      { type: 'name', string: 'Emma' },
      { type: 'author', reference: id.austen },
      { type: 'year', number: 1815 },
      { type: '_parent', reference: id.shelf },
      { type: '_sharing', string: 'domain' },
    ]);
    id.persuasion = await created([{ type: '_type', reference: id.book }, { type: 'name', string: 'Persuasion' }, { type: 'author', reference: id.austen }, { type: '_parent', reference: id.shelf }]);
    // The labels of references are the worker's (SPEC §3): wait until they settled.
    await eventually(
      async () => (await request(api.app).get(`/api/${t.db}/entity/${id.persuasion}/pending`).set('Authorization', t.owner.auth)).body,
      (body) => body.pending === false,
    );
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.close();
  });

  const send = (method: 'get' | 'post' | 'delete', path: string, body?: unknown, by: Person = t.owner) => {
    const req = request(api.app)[method](`/api/${t.db}${path}`).set('Authorization', by.auth);
    return body === undefined ? req : req.send(body as object);
  };

  /** One request of the client: how it is sent, and what of the answer the client reads. */
  type Row = [name: string, send: () => request.Test, reads: (body: any) => void];

  const rows: Row[] = [
    [
      'R1 the side menu: menus by type name, fields by path',
      () => send('get', '/entity?_type.string=menu&props=ordinal.number,group,name,query.string'),
      (body) => {
        const [menu] = body.entities;
        expect([menu._id, valueOf(menu.ordinal, 'number'), valueOf(menu.group), valueOf(menu.name), valueOf(menu.query)]).toEqual([
          expect.any(String),
          1,
          'Library',
          'Books',
          '_type.string=book&sort=name.string',
        ]);
      },
    ],
    [
      'R2 add-from: the types that may be added somewhere (a property no type defines has no values)',
      () => send('get', '/entity?_type.string=entity&add_from._id.exists=true&props=name,label,add_from.reference'),
      (body) => expect(body).toMatchObject({ entities: [], count: 0 }),
    ],
    [
      'R3 a menu’s list, paged, with photo and name',
      () => send('get', '/entity?_type.string=book&sort=name.string&limit=21&skip=0&props=photo,name'),
      (body) => {
        expect(body.entities.map((e: Entity) => valueOf(e.name))).toEqual(['Emma', 'Persuasion']);
        expect(body.count).toBe(2);
      },
    ],
    [
      'R3 the toolbar search (q)',
      () => send('get', '/entity?q=emm&limit=21&skip=0&props=photo,name'),
      (body) => expect(body.entities.map((e: Entity) => valueOf(e.name))).toEqual(['Emma']),
    ],
    [
      'R4 an entity: its type, label, sharing, parents, and the right lists the buttons read (cumulative)',
      () => send('get', `/entity/${id.emma}`),
      (body) => {
        const { entity } = body;
        expect([entity._type[0].reference, valueOf(entity._type), valueOf(entity._sharing), valueOf(entity.name)]).toEqual([id.book, 'book', 'domain', 'Emma']);
        expect(entity._parent[0]).toMatchObject({ _id: expect.any(String), reference: id.shelf, string: 'Shelf' });
        expect(entity.author[0]).toMatchObject({ reference: id.austen, string: 'Jane Austen' });
        // right.editor / expander / viewer: the owner is in each list.
        for (const list of ['_owner', '_editor', '_expander', '_viewer']) expect(entity[list].some((v: Value) => v.reference === t.owner.id)).toBe(true);
      },
    ],
    [
      'R5 a folder’s children, grouped by type',
      () => send('get', `/entity?_parent.reference=${id.shelf}&group=_type.reference&props=_type`),
      (body) => expect(body.entities).toEqual([{ _type: [expect.objectContaining({ reference: id.book })], _count: 2 }]),
    ],
    [
      'R6 an author’s referrers, grouped by type',
      () => send('get', `/entity?_reference.reference=${id.austen}&_reference.property_type.ne=_parent&group=_type.reference&props=_type`),
      (body) => expect(body.entities).toEqual([{ _type: [expect.objectContaining({ reference: id.book })], _count: 2 }]),
    ],
    [
      'R7a plugins',
      () => send('get', '/entity?_type.string=plugin&props=name,type,url,new_window'),
      (body) => expect([valueOf(body.entities[0].name), valueOf(body.entities[0].type), valueOf(body.entities[0].url), valueOf(body.entities[0].new_window, 'boolean')]).toEqual(['Preview', 'entity-edit', 'https://plugins.example/preview', true]),
    ],
    [
      'R7 a type',
      () => send('get', `/entity/${id.book}?props=description,label,name,plugin`),
      (body) => expect([body.entity._id, valueOf(body.entity.name)]).toEqual([id.book, 'book']),
    ],
    [
      'R7b a group row’s type label',
      () => send('get', `/entity/${id.book}?props=label_plural,label,name`),
      (body) => expect(valueOf(body.entity.name)).toBe('book'),
    ],
    [
      'R8 a type’s definitions',
      () => send('get', `/entity?_parent.reference=${id.book}&props=decimals,default,description,formula,group,hidden,label_plural,label,list,mandatory,markdown,multilingual,name,ordinal,plugin,readonly,reference_query,set,_sharing,type`),
      (body) => {
        const byName = Object.fromEntries(body.entities.map((e: Entity) => [valueOf(e.name), e]));
        expect(valueOf(byName.author.type)).toBe('reference');
        expect(valueOf(byName.tags.list, 'boolean')).toBe(true);
        expect(valueOf(byName.title.multilingual, 'boolean')).toBe(true);
      },
    ],
    [
      'R9a the child table’s columns (no type defines `table`: none)',
      () => send('get', `/entity?_parent.reference=${id.book}&table._id.exists=true&props=name,label,type,decimals&sort=ordinal.number`),
      (body) => expect(body.entities).toEqual([]),
    ],
    [
      'R9b the fallback column: name',
      () => send('get', `/entity?_parent.reference=${id.book}&name.string=name&props=name,label,type,decimals`),
      (body) => expect(body.entities.map((e: Entity) => valueOf(e.type))).toEqual(['string']),
    ],
    [
      'R10 the child table’s rows, sorted by a reference column’s label',
      () => send('get', `/entity?_parent.reference=${id.shelf}&_type.reference=${id.book}&props=photo,_sharing,_owner,_editor,name,author,year&sort=author.string&limit=25&skip=0`),
      (body) => {
        expect(body.count).toBe(2);
        for (const row of body.entities) expect(row._owner.map((v: Value) => v.reference)).toContain(t.owner.id);
        expect(body.entities.map((e: Entity) => valueOf(e.author))).toEqual(['Jane Austen', 'Jane Austen']);
      },
    ],
    [
      'R10r the referrer table',
      () => send('get', `/entity?_reference.reference=${id.austen}&_type.reference=${id.book}&props=photo,_sharing,_owner,_editor,name&sort=-name.string&limit=25&skip=0`),
      (body) => expect(body.entities.map((e: Entity) => valueOf(e.name))).toEqual(['Persuasion', 'Emma']),
    ],
    [
      'R11 the reference picker (rights drawer: persons)',
      () => send('get', '/entity?_type.string=person&q=&props=_type.string,name&sort=name.string&limit=100'),
      (body) => {
        expect(body.entities.map((e: Entity) => valueOf(e.name))).toEqual(expect.arrayContaining(['Jane Austen', 'Rita Reader']));
        expect(valueOf(body.entities[0]._type)).toBe('person');
      },
    ],
    [
      'R11p the parents picker: entities I may expand (an owner may)',
      () => send('get', `/entity?_expander.reference=${t.owner.id}&_type.reference.in=${id.folder},${id.book}&q=sh&props=_type.string,name&sort=name.string&limit=100`),
      (body) => expect(body.entities.map((e: Entity) => valueOf(e.name))).toEqual(['Shelf']),
    ],
    [
      'R12a the search modal’s types',
      () => send('get', '/entity?_type.string=entity&limit=1000&props=name,label'),
      (body) => expect(body.entities.map((e: Entity) => valueOf(e.name))).toEqual(expect.arrayContaining(['book', 'folder', 'menu'])),
    ],
    [
      'R12b the search modal’s properties of the chosen types',
      () => send('get', '/entity?_type.string=property&_parent.string.in=book,folder&props=_parent,name,label,type&limit=1000'),
      (body) => {
        expect(body.entities.length).toBeGreaterThan(0);
        for (const definition of body.entities) expect(typeof valueOf(definition.type)).toBe('string');
      },
    ],
    [
      'R12c the search it emits: a label, epoch-ms dates, the last change first',
      () => send('get', `/entity?author.string=${encodeURIComponent('Jane Austen')}&_created.datetime.gte=${Date.parse('2020-01-01')}&sort=-_changed.datetime&limit=21&skip=0&props=photo,name`),
      (body) => expect(body.entities.map((e: Entity) => valueOf(e.name)).sort()).toEqual(['Emma', 'Persuasion']),
    ],
    [
      'R14 the edit form: a string, a number, an epoch-ms date and datetime, a reference, a multilingual value',
      () =>
        send('post', `/entity/${id.emma}`, [
          { type: 'name', string: 'Emma.' },
          { type: 'year', number: 1816 },
          // 2024-05-01 picked in Tallinn (UTC+3): its local midnight.
          { type: 'published', date: 1714510800000 },
          { type: 'seen', datetime: 1714557000000 },
          { type: 'author', reference: id.austen },
          { type: 'title', string: 'Emma', language: 'en' },
        ]),
      (body) => {
        const find = (type: string) => body.properties.find((x: Value) => x.type === type);
        expect(body._id).toBe(id.emma);
        expect([find('name').string, find('year').number, find('published').date, find('seen').datetime, find('author').reference, find('title').language]).toEqual([
          'Emma.',
          1816,
          '2024-05-01',
          '2024-05-01T09:50:00.000Z',
          id.austen,
          'en',
        ]);
        for (const value of body.properties) expect(value._id).toEqual(expect.any(String));
      },
    ],
    [
      'R14f a file: its value with the upload the client PUTs to',
      () => send('post', `/entity/${id.emma}`, [{ type: 'photo', filename: 'cover.jpg', filesize: 1234, filetype: 'image/jpeg' }]),
      (body) => {
        const photo = body.properties.find((x: Value) => x.type === 'photo');
        expect(photo).toMatchObject({ _id: expect.any(String), filename: 'cover.jpg', upload: { method: 'PUT', url: expect.any(String), headers: expect.any(Object) } });
      },
    ],
    [
      'R15 overwriting a value by its _id',
      () => send('post', `/entity/${id.persuasion}`, [{ type: 'year', number: 1817 }]),
      (body) => expect(body.properties.find((x: Value) => x.type === 'year')).toMatchObject({ _id: expect.any(String), number: 1817 }),
    ],
    [
      'R13 creating a child from the add drawer (the first saved field, _parent, _type)',
      () => send('post', '/entity', [{ type: 'name', string: 'Sanditon' }, { type: '_parent', reference: id.shelf }, { type: '_type', reference: id.book }]),
      (body) => expect(body._id).toEqual(expect.any(String)),
    ],
    [
      'R17r the rights drawer: every list with _id, reference, label, and the inherited marks',
      () => send('get', `/entity/${id.emma}?props=name,_noaccess,_viewer,_expander,_editor,_owner,_parent_viewer,_parent_expander,_parent_editor,_parent_owner,_sharing,_inheritrights`),
      (body) => {
        const { entity } = body;
        const owner = entity._owner.find((v: Value) => v.reference === t.owner.id);
        expect(owner).toMatchObject({ _id: expect.any(String), string: 'Owner' });
        // The client tells the levels apart by _id: the owner's entry below is the owner's value.
        expect(entity._editor.find((v: Value) => v.reference === t.owner.id)._id).toBe(owner._id);
        expect(valueOf(entity._sharing)).toBe('domain');
        expect(valueOf(entity._sharing, '_id')).toEqual(expect.any(String));
      },
    ],
    [
      'R17s sharing public, by the _sharing value’s _id',
      () => send('post', `/entity/${id.persuasion}`, [{ type: '_sharing', string: 'public' }]),
      (body) => expect(body.properties.find((x: Value) => x.type === '_sharing')).toMatchObject({ _id: expect.any(String), string: 'public' }),
    ],
    [
      'R17i inheriting rights on',
      () => send('post', `/entity/${id.persuasion}`, [{ type: '_inheritrights', boolean: true }]),
      (body) => expect(body.properties.find((x: Value) => x.type === '_inheritrights')).toMatchObject({ _id: expect.any(String), boolean: true }),
    ],
    [
      'R17a adding a viewer',
      () => send('post', `/entity/${id.persuasion}`, [{ type: '_viewer', reference: reader.id }]),
      (body) => expect(body.properties).toEqual([expect.objectContaining({ type: '_viewer', reference: reader.id })]),
    ],
    [
      'R17c adding a parent',
      () => send('post', `/entity/${id.persuasion}`, [{ type: '_parent', reference: id.shelf }]),
      (body) => expect(body.properties).toEqual([expect.objectContaining({ type: '_parent', reference: id.shelf })]),
    ],
    [
      'R17p the parents drawer: each parent’s _expander (cumulative: the owner is in it)',
      () => send('get', `/entity/${id.shelf}?props=_expander`),
      (body) => expect(body.entity._expander.some((v: Value) => v.reference === t.owner.id)).toBe(true),
    ],
    [
      'R18 the history drawer',
      () => send('get', `/entity/${id.emma}/history?limit=25`),
      (body) => {
        expect(body.count).toBeGreaterThan(0);
        for (const change of body.changes) expect(Number.isNaN(Date.parse(change.at))).toBe(false);
      },
    ],
    [
      'R19 the duplicate drawer',
      () => send('post', `/entity/${id.emma}/duplicate`, { count: 2, ignoredProperties: ['year'] }),
      (body) => expect(body.entities).toHaveLength(2),
    ],
    [
      'STAT the database home (/api/{db}/)',
      () => send('get', '/'),
      (body) => {
        for (const key of ['entities', 'properties', 'files', 'tokens']) expect(body[key]).toEqual(expect.objectContaining({ usage: expect.any(Number) }));
        expect(body.entities.usage).toBeGreaterThan(0);
      },
    ],
    [
      'STAT the database home (/api/{db})',
      () => request(api.app).get(`/api/${t.db}`).set('Authorization', t.owner.auth),
      (body) => expect(Object.keys(body)).toEqual(expect.arrayContaining(['entities', 'properties', 'files', 'tokens'])),
    ],
  ];

  it.each(rows)('%s', async (_name, sent, reads) => {
    const res = await sent();
    expect({ status: res.status < 300 ? 'ok' : res.status, body: res.status < 300 ? 'ok' : res.body }).toEqual({ status: 'ok', body: 'ok' });
    reads(res.body);
  });

  it('FILE a file value’s url, and the thumbnails the client asks for', async () => {
    const photo = (await send('get', `/entity/${id.emma}?props=photo`)).body.entity.photo[0];
    const file = await send('get', `/property/${photo._id}`);
    expect(file.status).toBe(200);
    expect(file.body.url).toEqual(expect.any(String));
  });

  it('AUTH the key link: accounts with the person, and a token', async () => {
    const res = await request(api.app).get('/api/auth').set('Authorization', `Bearer ${reader.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.body.accounts).toEqual(expect.arrayContaining([{ _id: t.db, name: t.db, user: { _id: reader.id, name: 'Rita Reader' } }]));
    expect(res.body.token).toEqual(expect.any(String));
  });
});
