import { DefinitionMismatchError, EntiaClient, EntiaError, InputError, UnknownPropertyError, UnknownTypeError, rawOf, type EntiaDatabase } from '@entia/client';
import { fileFromPath, saveDownload } from '@entia/client/node';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApi, type TestApi } from '../../../../services/api/test/support';
import { testTenant, type TestTenant } from '../../../../services/api/test/tenant';

/** The database's definitions as `entia types` writes them (generate.test.ts checks the generator). */
type Library = {
  book: {
    title: { type: 'string'; list: false; multilingual: false; mandatory: true };
    tags: { type: 'string'; list: true; multilingual: false };
    pages: { type: 'number'; list: false; multilingual: false };
    published: { type: 'date'; list: false; multilingual: false };
    read_at: { type: 'datetime'; list: false; multilingual: false };
    available: { type: 'boolean'; list: false; multilingual: false };
    author: { type: 'reference'; list: false; multilingual: false };
    label: { type: 'string'; list: false; multilingual: true };
    notes: { type: 'text'; list: true; multilingual: true };
    summary: { type: 'text'; list: false; multilingual: false };
    cover: { type: 'file'; list: false; multilingual: false };
    double: { type: 'number'; list: false; multilingual: false; computed: true };
    constructor: { type: 'string'; list: false; multilingual: false };
  };
  author: { name: { type: 'string'; list: false; multilingual: false; mandatory: true } };
  person: { name: { type: 'string'; list: false; multilingual: false } };
  entity: { name: { type: 'string'; list: false; multilingual: false } };
  property: {
    name: { type: 'string'; list: false; multilingual: false };
    type: { type: 'string'; list: false; multilingual: false };
    list: { type: 'boolean'; list: false; multilingual: false };
    multilingual: { type: 'boolean'; list: false; multilingual: false };
    search: { type: 'boolean'; list: false; multilingual: false };
    mandatory: { type: 'boolean'; list: false; multilingual: false };
    formula: { type: 'string'; list: false; multilingual: false };
  };
};

// The SDK's object API against the real API over a socket: only what the package exports is used.
describe('the SDK, by name and as objects, against the real API', () => {
  let api: TestApi;
  let tenant: TestTenant;
  let client: EntiaClient;
  let db: EntiaDatabase<Library>;
  let authorId: string;
  /** Folders the tests wrote files to, removed at the end. */
  const scratch: string[] = [];

  beforeAll(async () => {
    api = testApi();
    tenant = await testTenant(api);
    client = new EntiaClient({ baseUrl: tenant.baseUrl, apiKey: tenant.owner.apiKey, db: tenant.db });
    db = client.db<Library>();
    // The types are defined through the SDK too: in one call, or entity by entity (meta-types are
    // types like any other).
    const author = await db.defineType('author', { name: { type: 'string', mandatory: true } });
    expect(author).toEqual({ _id: expect.any(String), name: 'author', properties: [expect.objectContaining({ name: 'name', type: 'string', mandatory: true, list: false })] });
    const book = await db.type('entity').create({ name: 'book', _sharing: 'domain' });
    const definitions: Record<string, unknown>[] = [
      { name: 'title', type: 'string', mandatory: true, search: true },
      { name: 'tags', type: 'string', list: true },
      { name: 'pages', type: 'number' },
      { name: 'published', type: 'date' },
      { name: 'read_at', type: 'datetime' },
      { name: 'available', type: 'boolean' },
      { name: 'author', type: 'reference' },
      { name: 'label', type: 'string', multilingual: true },
      { name: 'notes', type: 'text', list: true, multilingual: true },
      { name: 'summary', type: 'text', search: true },
      { name: 'cover', type: 'file' },
      { name: 'double', type: 'number', formula: 'pages 2 MULTIPLY' },
      { name: 'constructor', type: 'string' },
    ];
    for (const definition of definitions) await db.type('property').create({ ...definition, _parent: book._id, _sharing: 'domain' } as never);
    authorId = (await db.type('author').create({ name: 'Frank Herbert' }))._id;
  });
  afterAll(async () => {
    await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
    await tenant.close();
    await api.close();
  });

  it('creates from an object and reads back plain values: lists as arrays, languages by key, the type by name', async () => {
    const dune = await db.type('book').create({
      title: 'Dune',
      tags: ['sf', 'classic'],
      pages: 412,
      published: '1965-08-01',
      read_at: new Date('2020-01-02T03:04:05.678Z'),
      available: true,
      author: authorId,
      label: { en: 'Dune', et: 'Düün' },
      notes: { en: ['spice', 'desert'] },
      constructor: 'a property named constructor is data',
    });
    expect(dune).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      _type: 'book',
      _created: expect.any(String),
      _changed: dune._created,
      // No `_sharing`: private, the default.
      _owner: [tenant.owner.id],
      title: 'Dune',
      tags: ['sf', 'classic'],
      pages: 412,
      published: '1965-08-01',
      read_at: '2020-01-02T03:04:05.678Z',
      available: true,
      author: authorId,
      label: { en: 'Dune', et: 'Düün' },
      notes: { en: ['spice', 'desert'] },
      constructor: 'a property named constructor is data',
      // Computed in the same request, from the formula.
      double: 824,
    });
    expect(await db.type('book').get(dune._id)).toEqual(dune);
    // A picked language reads as the value itself.
    const english = await db.type('book', { language: 'en' }).get(dune._id);
    expect([english.label, english.notes]).toEqual(['Dune', ['spice', 'desert']]);
    // The raw values are one call away, with their ids.
    const raw = rawOf(dune)!;
    expect(raw.title).toEqual([expect.objectContaining({ _id: expect.any(String), string: 'Dune', created: expect.objectContaining({ by: tenant.owner.id }) })]);
    // The same entity through the wire-format escape hatch.
    expect((await db.getEntity(dune._id)).entity.title).toEqual(raw.title);
  });

  it('lists by name: where with operators, sort, select, q, limit and skip, count of all matches', async () => {
    const books = db.type('book');
    for (const [title, pages, tags] of [['Alpha', 100, ['a']], ['Beta', 200, ['b', 'x']], ['Gamma', 300, ['x']], ['Delta', 50, []]] as const) {
      await books.create({ title: `Where ${title}`, pages, tags: [...tags], available: pages > 60, published: `20${pages === 50 ? '05' : pages / 10}-01-01`, summary: `summary of ${title}` });
    }
    const where = { title: { regex: /^Where /, ne: 'Where Beta' }, pages: { gte: 60 } };
    const page = await books.list({ where, sort: '-pages' });
    expect(page.items.map((b) => b.title)).toEqual(['Where Gamma', 'Where Alpha']);
    expect(page.count).toBe(2);

    expect((await books.list({ where: { title: { regex: /^where /i }, tags: { in: ['x', 'zzz'] } }, sort: ['title'] })).items.map((b) => b.title)).toEqual(['Where Beta', 'Where Gamma']);
    expect((await books.list({ where: { title: { regex: /^Where / }, tags: { exists: false } } })).items.map((b) => b.title)).toEqual(['Where Delta']);
    expect((await books.list({ where: { title: { regex: /^Where / }, available: false } })).items.map((b) => b.title)).toEqual(['Where Delta']);
    expect((await books.list({ where: { title: { regex: /^Where / }, published: { lt: '2015-01-01' } }, sort: 'published' })).items.map((b) => b.title)).toEqual(['Where Delta', 'Where Alpha']);
    expect((await books.list({ where: { title: { regex: /^Where / } }, q: 'summ gam' })).items.map((b) => b.title)).toEqual(['Where Gamma']);

    const paged = await books.list({ where: { title: { regex: /^Where / } }, sort: 'pages', limit: 2, skip: 1 });
    expect([paged.items.map((b) => b.pages), paged.count, paged.limit, paged.skip]).toEqual([[100, 200], 4, 2, 1]);

    // `select` narrows the object to what was asked for (and the system fields).
    const [gamma] = (await books.list({ where: { title: 'Where Gamma' }, select: ['title'] })).items;
    expect(gamma).toEqual({ _id: expect.any(String), _type: 'book', _created: expect.any(String), _changed: expect.any(String), title: 'Where Gamma' });
  });

  it('iterates over every match, page by page, with for await', async () => {
    const books = db.type('book');
    for (let i = 0; i < 7; i++) await books.create({ title: `Iterate ${i}`, pages: i });
    const seen: number[] = [];
    for await (const book of books.iterate({ where: { title: { regex: /^Iterate / } }, sort: '-pages', limit: 3 })) seen.push(book.pages!);
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0]);
    // Breaking out early is fine: nothing more is asked for.
    for await (const book of books.iterate({ where: { title: { regex: /^Iterate / } }, sort: 'pages', limit: 2 })) {
      expect(book.pages).toBe(0);
      break;
    }
    const raw: string[] = [];
    for await (const entity of db.iterateEntities({ 'title.string.regex': '/^Iterate /', sort: 'pages.number', limit: 4 })) raw.push(entity._id);
    expect(raw).toHaveLength(7);
  });

  it('updates by name: replaces single values, sets lists exactly (keeping unchanged values), removes with null', async () => {
    const books = db.type('book');
    const book = await books.create({ title: 'Update me', tags: ['keep', 'drop', 'change'], label: { en: 'E', et: 'T' }, pages: 1 });
    const keepId = rawOf(book)!.tags;
    const before = Array.isArray(keepId) ? keepId : [];
    const updated = await books.update(book._id, { title: 'Updated', tags: ['keep', 'changed', 'new'], label: { et: null }, pages: null });
    expect(updated).toMatchObject({ title: 'Updated', label: { en: 'E' } });
    expect(updated.tags.slice().sort()).toEqual(['changed', 'keep', 'new']);
    expect(updated.pages).toBeUndefined();
    const after = rawOf(updated)!.tags as { _id: string; string: string }[];
    // The value left as it was is the same value; the changed one was overwritten in place.
    expect(after.find((v) => v.string === 'keep')!._id).toBe(before.find((v) => v.string === 'keep')!._id);
    expect(after.find((v) => v.string === 'changed')!._id).toBe(before.find((v) => v.string === 'drop')!._id);
    expect(after).toHaveLength(3);

    const added = await books.add(book._id, { tags: ['one more'], pages: 7 });
    expect([added.tags.length, added.pages, added.double]).toEqual([4, 7, 14]);
  });

  it('shares and deletes by name; another person sees the entity once named a viewer', async () => {
    const reader = await tenant.newPerson('Reader');
    const readerDb = new EntiaClient({ baseUrl: tenant.baseUrl, apiKey: reader.apiKey, db: tenant.db }).db<Library>();
    const book = await db.type('book').create({ title: 'Shared' });
    await expect(readerDb.type('book').get(book._id)).rejects.toMatchObject({ status: 404 });
    await db.type('book').update(book._id, { _viewer: [reader.id] });
    expect(await readerDb.type('book').get(book._id)).toMatchObject({ title: 'Shared', _viewer: [reader.id] });
    await expect(readerDb.type('book').update(book._id, { title: 'Not yours' })).rejects.toMatchObject({ status: 403 });

    await db.type('book').delete(book._id);
    const gone = await db.type('book').get(book._id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(EntiaError);
    expect((gone as EntiaError).status).toBe(404);
  });

  it('uploads from a Blob, bytes, a stream and a path, and downloads the same bytes', async () => {
    const books = db.type('book');
    const book = await books.create({ title: 'With a cover' });
    const dir = await mkdtemp(join(tmpdir(), 'entia-sdk-'));
    scratch.push(dir);
    const bytes = new TextEncoder().encode('the cover, as text\n'.repeat(100));

    const fromBlob = await books.upload(book._id, 'cover', new File([bytes], 'blob.txt', { type: 'text/plain' }));
    expect(fromBlob).toEqual({ _id: expect.any(String), filename: 'blob.txt', filesize: bytes.byteLength, filetype: 'text/plain' });
    expect(new Uint8Array(await (await db.download(fromBlob._id)).response.arrayBuffer())).toEqual(bytes);

    const fromBytes = await books.upload(book._id, 'cover', { data: bytes, filename: 'bytes.bin' });
    expect(fromBytes).toMatchObject({ filename: 'bytes.bin', filetype: 'application/octet-stream' });

    const stream = new Blob([bytes]).stream();
    const fromStream = await books.upload(book._id, 'cover', { data: stream, size: bytes.byteLength, filename: 'stream.txt', filetype: 'text/plain' });
    expect(new Uint8Array(await (await db.download(fromStream._id)).response.arrayBuffer())).toEqual(bytes);

    const path = join(dir, 'on disk.txt');
    await writeFile(path, bytes);
    const fromPath = await books.upload(book._id, 'cover', await fileFromPath(path, { filetype: 'text/plain' }));
    expect(fromPath).toMatchObject({ filename: 'on disk.txt', filesize: bytes.byteLength });
    const download = await db.download(fromPath._id);
    expect(download.value).toMatchObject({ filename: 'on disk.txt', filetype: 'text/plain' });
    await saveDownload(download, join(dir, 'copy.txt'));
    expect(new Uint8Array(await readFile(join(dir, 'copy.txt')))).toEqual(bytes);

    // `cover` holds one file: each upload replaced the one before.
    expect((await books.get(book._id)).cover).toEqual(fromPath);
    // A stream without its size cannot be described to the API: refused before anything is sent.
    await expect(books.upload(book._id, 'cover', { data: new Blob([bytes]).stream(), filename: 'x' })).rejects.toThrow(/size/);
  });

  it('refuses what cannot be written before sending it, and finds a property defined after the schema was read', async () => {
    const books = db.type('book');
    await expect(books.create({ title: 'x', nope: 1 } as never)).rejects.toBeInstanceOf(UnknownPropertyError);
    await expect(books.create({ title: 42 } as never)).rejects.toThrow(/"title" takes a string/);
    await expect(books.create({ title: 'x', double: 3 } as never)).rejects.toThrow(/"double" is computed/);
    await expect(books.create({ title: 'x', pages: Number.NaN })).rejects.toBeInstanceOf(InputError);
    await expect(books.create({ title: 'x', label: 'not per language' } as never)).rejects.toThrow(/multilingual/);
    await expect(books.create({ title: 'x', cover: 'file' } as never)).rejects.toThrow(/upload/);
    await expect(db.type('magazine' as 'book').list()).rejects.toBeInstanceOf(UnknownTypeError);
    // An author read through the book handle is not a book.
    await expect(books.get(authorId)).rejects.toThrow(/is of type "author", not "book"/);
    // What only the server can judge is the server's 400, as an EntiaError.
    await expect(books.create({ title: 'x', published: '1965-02-30' })).rejects.toMatchObject({ status: 400 });
    // A mandatory property left out.
    await expect(books.create({} as never)).rejects.toMatchObject({ status: 400 });

    // Someone else defines a property; this client's schema is older, and the first use refetches it.
    const bookType = await books.describe();
    await tenant.defineProperty(bookType._id, { name: 'isbn', type: 'string' });
    const withIsbn = await db.type('book').create({ title: 'New field', isbn: '978-0441172719' } as never);
    expect(withIsbn).toMatchObject({ isbn: '978-0441172719' });
  });

  it('subscribes by name and receives objects', async () => {
    const events: { kind: string; title?: string }[] = [];
    const subscription = await db.type('book').subscribe({ title: { regex: /^Live / } }, (event) => events.push({ kind: event.kind, title: event.object?.title }), { select: ['title'] });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const live = await db.type('book').create({ title: 'Live one' });
      await db.type('book').update(live._id, { title: 'Live two' });
      for (let i = 0; i < 100 && events.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events).toEqual([
        { kind: 'created', title: 'Live one' },
        { kind: 'updated', title: 'Live two' },
      ]);
    } finally {
      subscription.close();
      await subscription.done;
    }
  });

  it('the wire-format calls: schema, query by POST, aggregate one entity, delete a value, a new API key', async () => {
    const schema = await db.schema();
    const book = schema.types.find((type) => type.name === 'book')!;
    expect(book.properties.find((property) => property.name === 'tags')).toEqual({
      _id: expect.any(String),
      name: 'tags',
      type: 'string',
      list: true,
      multilingual: false,
      search: false,
      mandatory: false,
      readonly: false,
      fields: [{ name: 'string', scalar: 'string' }],
      input: 'value',
    });
    expect(book.properties.find((property) => property.name === 'double')).toMatchObject({ type: 'number', formula: 'pages 2 MULTIPLY' });

    const created = await db.createEntity([{ type: '_type', reference: book._id }, { type: 'title', string: 'Wire' }, { type: 'pages', number: 3 }, { type: 'tags', string: 'one' }]);
    const found = await db.queryEntities({ '_type.reference': book._id, 'title.string': 'Wire', props: ['title'] });
    expect(found.entities.map((entity) => entity._id)).toEqual([created._id]);
    expect((await db.aggregateEntity(created._id)).entity.double).toEqual([expect.objectContaining({ number: 6 })]);

    const tag = created.properties.tags![0]!;
    expect(await db.deleteProperty(tag._id)).toEqual({ deleted: true });
    expect((await db.type('book').get(created._id)).tags).toEqual([]);

    const person = await db.type('person').create({ name: 'Keyed' });
    const key = await db.generateApiKey(person._id);
    const accounts = (await new EntiaClient({ baseUrl: tenant.baseUrl, apiKey: key }).auth()).accounts;
    expect(accounts).toEqual([{ _id: tenant.db, name: tenant.db, user: { _id: person._id, name: 'Keyed' } }]);
    // The schema is fetched again on request: a type defined meanwhile is there at once.
    await tenant.defineType('magazine', [{ name: 'issue', type: 'number' }]);
    await db.refreshSchema();
    expect((await db.type('magazine' as 'book').list()).items).toEqual([]);
  });

  it('defineType is idempotent: run twice or twice at once, one type; missing definitions added; a different one refused, nothing changed', async () => {
    const declared = { headline: { type: 'string', search: true }, words: 'number' } as const;
    const [first, second] = await Promise.all([db.defineType('column', declared), db.defineType('column', declared)]);
    expect(second._id).toBe(first._id);
    expect(first.properties.map((p) => p.name).sort()).toEqual(['headline', 'words']);
    const again = await db.defineType('column', declared);
    expect([again._id, again.properties.length]).toEqual([first._id, 2]);
    const types = await db.listEntities({ '_type.reference': tenant.types.entity, 'name.string': 'column' });
    expect(types.count).toBe(1);

    const grown = await db.defineType('column', { ...declared, byline: 'string' });
    expect(grown.properties.map((p) => p.name).sort()).toEqual(['byline', 'headline', 'words']);

    const refused = await db.defineType('column', { headline: 'text', extra: 'string' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DefinitionMismatchError);
    expect((refused as Error).message).toContain('headline: type is string, declared text, search is true, declared false');
    expect((await client.db().type('column').describe()).properties.map((p) => p.name).sort()).toEqual(['byline', 'headline', 'words']);
  });

  it('gives up at a signal or a time limit, without retrying', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('user left'));
    await expect(db.type('book').list({}, { signal: aborted.signal })).rejects.toThrow('user left');
    await expect(db.getEntity(authorId, { signal: aborted.signal })).rejects.toThrow('user left');
  });
});
