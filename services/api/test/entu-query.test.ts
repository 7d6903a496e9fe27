import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/**
 * The list queries Entu's web client sends (issue 32, SPEC §7a; the request shapes of the
 * catalogue, R1…R12c) on the real stack: a reference's label as a filter and a sort key, whether a
 * property has any value (`<property>._id.exists`, also of a property no type defines), boolean and
 * reference-id sorts, and right lists filtered as they are shown (cumulative). Each asserts what
 * the client reads of the answer, that a label never finds an entity the caller cannot read, and
 * that hostile input is a 400 naming the parameter.
 */

type Entity = { _id: string } & Record<string, any>;

describe("Entu's web client: the list queries it sends", () => {
  let api: TestApi;
  let t: TestTenant;
  let mia: Person;
  let member: Person;
  const id: Record<string, string> = {};

  /** GET the list as `by` (the owner unless given; null: anonymous). */
  const get = (query: string, by: Person | null = t.owner) => {
    const req = request(api.app).get(`/api/${t.db}/entity?${query}`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  /** The answer's entities, after asserting a 200 whose `count` covers them. */
  async function entities(query: string, by?: Person): Promise<Entity[]> {
    const res = await get(query, by);
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
    expect(res.body.count).toBeGreaterThanOrEqual(res.body.entities.length);
    return res.body.entities;
  }
  /** `getValue(x.name)` as the client reads it: the first value's `string`. */
  const nameOf = (entity: Entity): string | undefined => entity.name?.[0]?.string;
  const names = async (query: string, by?: Person) => (await entities(query, by)).map(nameOf);
  const sortedNames = async (query: string, by?: Person) => (await names(query, by)).sort();

  async function created(values: object[], by: Person = t.owner): Promise<string> {
    const res = await t.create(values, by);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body._id;
  }

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    t = await testTenant(api);
    [mia, member] = await Promise.all([t.newPerson('Mia'), t.newPerson('Member')]);
    id.menuType = await t.defineType('menu', [
      { name: 'name', type: 'string' },
      { name: 'group', type: 'string' },
      { name: 'ordinal', type: 'number' },
      { name: 'query', type: 'string' },
      { name: 'add_from', type: 'reference', list: true },
    ]);
    id.authorType = await t.defineType('author', [{ name: 'name', type: 'string', search: true }]);
    id.folder = await t.defineType('folder', [{ name: 'name', type: 'string', search: true }]);
    id.book = await t.defineType('book', [
      { name: 'name', type: 'string', search: true },
      { name: 'author', type: 'reference' },
      { name: 'done', type: 'boolean' },
      { name: 'photo', type: 'file' },
    ]);
    // Definitions in the order a table shows its columns (R9a sorts them by `ordinal`).
    const definitions = await entities(`_parent.reference=${id.book}&props=name`);
    for (const [n, column] of ['author', 'name', 'done', 'photo'].entries()) {
      const definition = definitions.find((d) => nameOf(d) === column)!;
      const res = await request(api.app).post(`/api/${t.db}/entity/${definition._id}`).set('Authorization', t.owner.auth).send([{ type: 'ordinal', number: n + 1 }]);
      expect(res.status).toBe(200);
    }

    const domain = { type: '_sharing', string: 'domain' };
    id.austen = await created([{ type: '_type', reference: id.authorType }, { type: 'name', string: 'Jane Austen' }, domain]);
    id.herbert = await created([{ type: '_type', reference: id.authorType }, { type: 'name', string: 'Frank Herbert' }, domain]);
    // An author only its owner reads: the label it gives the books is theirs to show.
    id.secret = await created([{ type: '_type', reference: id.authorType }, { type: 'name', string: 'Anonymous' }]);
    id.shelf = await created([{ type: '_type', reference: id.folder }, { type: 'name', string: 'Shelf' }, domain]);
    const book = (name: string, extra: object[]) =>
      created([{ type: '_type', reference: id.book }, { type: '_parent', reference: id.shelf }, { type: 'name', string: name }, ...extra]);
    id.emma = await book('Emma', [{ type: 'author', reference: id.austen }, { type: 'done', boolean: true }, domain]);
    id.persuasion = await book('Persuasion', [{ type: 'author', reference: id.austen }, { type: 'done', boolean: false }]);
    id.dune = await book('Dune', [{ type: 'author', reference: id.herbert }, { type: 'done', boolean: false }, domain]);
    id.primer = await book('Primer', [{ type: 'author', reference: id.secret }, domain]);
    id.untitled = await book('Untitled', [domain]);
    await created([{ type: '_type', reference: id.menuType }, { type: 'name', string: 'Books' }, { type: 'group', string: 'Library' }, { type: 'ordinal', number: 2 }, { type: 'query', string: `_type.string=book&sort=name.string` }, { type: 'add_from', reference: id.shelf }, domain]);
    await created([{ type: '_type', reference: id.menuType }, { type: 'name', string: 'Authors' }, { type: 'group', string: 'Library' }, { type: 'ordinal', number: 1 }, { type: 'query', string: '_type.string=author' }, domain]);

    // Folders Mia holds each right on, one she holds none on.
    id.mine = await created([{ type: '_type', reference: id.folder }, { type: 'name', string: 'Mine' }], mia);
    id.edited = await created([{ type: '_type', reference: id.folder }, { type: 'name', string: 'Edited' }, { type: '_editor', reference: mia.id }]);
    id.expanded = await created([{ type: '_type', reference: id.folder }, { type: 'name', string: 'Expanded' }, { type: '_expander', reference: mia.id }]);
    id.viewed = await created([{ type: '_type', reference: id.folder }, { type: 'name', string: 'Viewed' }, { type: '_viewer', reference: mia.id }]);
    id.closed = await created([{ type: '_type', reference: id.folder }, { type: 'name', string: 'Closed' }]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  describe('a reference’s label as a filter (item 1)', () => {
    it('R1 the menu: _type.string=menu, each entry with what the side menu reads', async () => {
      const menu = await entities('_type.string=menu&props=ordinal,group,name,query');
      expect(menu.map((entry) => [entry.ordinal[0].number, entry.group[0].string, nameOf(entry), entry.query[0].string]).sort()).toEqual([
        [1, 'Library', 'Authors', '_type.string=author'],
        [2, 'Library', 'Books', '_type.string=book&sort=name.string'],
      ]);
      for (const entry of menu) expect(entry._id).toMatch(/^[0-9a-f]{24}$/);
    });

    it('R3 a menu’s query, as it links to the list: books by name', async () => {
      expect(await names('_type.string=book&sort=name.string&limit=21&skip=0&props=photo,name')).toEqual(['Dune', 'Emma', 'Persuasion', 'Primer', 'Untitled']);
    });

    it('R12a the types of the search modal: _type.string=entity, those of a new database among them', async () => {
      const types = await names('_type.string=entity&limit=1000&props=name,label');
      expect(types.sort()).toEqual(['author', 'book', 'database', 'entity', 'folder', 'menu', 'person', 'property', 'webhook']);
    });

    it('R11 the rights drawer’s person picker: _type.string=person finds every person, the first one too', async () => {
      expect(await sortedNames('_type.string=person&q=&props=_type,name&sort=name.string&limit=100')).toEqual(['Member', 'Mia', 'Owner']);
    });

    it('R12b the properties of chosen types: _type.string=property&_parent.string.in=book,folder, each with its type', async () => {
      const found = await entities('_type.string=property&_parent.string.in=book,folder&props=_parent,name,label,type&limit=1000');
      expect(found.map((d) => `${d._parent[0].string}.${nameOf(d)}:${d.type[0].string}`).sort()).toEqual([
        'book.author:reference',
        'book.done:boolean',
        'book.name:string',
        'book.photo:file',
        'folder.name:string',
      ]);
    });

    it('R12c author.string=Jane Austen: the books whose author value carries that label', async () => {
      expect(await sortedNames('author.string=Jane%20Austen&sort=-_created.datetime&limit=21&skip=0&props=photo,name')).toEqual(['Emma', 'Persuasion']);
    });

    it.each<[string, string[]]>([
      ['author.string.ne=Jane%20Austen', ['Dune', 'Primer']],
      ['author.string.in=Frank%20Herbert,Anonymous', ['Dune', 'Primer']],
      ['author.string.regex=/^jane/i', ['Emma', 'Persuasion']],
      ['_type.string=book&author.string.exists=false', ['Untitled']],
      ['author.string.exists=true&author.string.ne=Anonymous', ['Dune', 'Emma', 'Persuasion']],
      [`_parent.string=Shelf`, ['Dune', 'Emma', 'Persuasion', 'Primer', 'Untitled']],
      // Mia's own folder `Mine` has no parent either, but the owner does not read it
      [`_type.string.in=book,folder&_parent.string.exists=false&name.string.regex=/^(S|M)/`, ['Shelf']],
      ['_owner.string=Owner&_type.string=author', ['Anonymous', 'Frank Herbert', 'Jane Austen']],
    ])('%s', async (query, expected) => {
      expect(await sortedNames(query)).toEqual(expected);
    });

    it.each<[string, string]>([
      ['done.string=x', '"done" is boolean, not string'],
      ['photo.string.in=a,b', '"photo" is filename/filesize/filetype, not string'],
      ['author.number=1', '"author" is reference/string, not number'],
      [`name.reference=${'a'.repeat(24)}`, '"name" is string, not reference'],
    ])('a genuine mismatch stays 400 naming the filter: %s', async (query, message) => {
      const res = await get(`_type.reference=${id.book}&${query}`);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ parameter: query.split('=')[0], message }]);
    });

    it('follows the label as it is now: the author renamed, the books are found by the new name', async () => {
      const renamed = await request(api.app).post(`/api/${t.db}/entity/${id.herbert}`).set('Authorization', t.owner.auth).send([{ type: 'name', string: 'F. Herbert' }]);
      expect(renamed.status).toBe(200);
      // The worker relabels the books that point at it; `/aggregate` settles one now.
      expect((await request(api.app).post(`/api/${t.db}/entity/${id.dune}/aggregate`).set('Authorization', t.owner.auth)).status).toBe(200);
      expect(await names('author.string=F.%20Herbert')).toEqual(['Dune']);
      expect(await names('author.string=Frank%20Herbert')).toEqual([]);
      await request(api.app).post(`/api/${t.db}/entity/${id.herbert}`).set('Authorization', t.owner.auth).send([{ type: 'name', string: 'Frank Herbert' }]);
      await request(api.app).post(`/api/${t.db}/entity/${id.dune}/aggregate`).set('Authorization', t.owner.auth);
      expect(await names('author.string=Frank%20Herbert')).toEqual(['Dune']);
    });
  });

  describe('a label finds only entities the caller reads, and only what their own value shows', () => {
    it('a member finds the domain books by their author’s label, never the private one', async () => {
      expect(await sortedNames('author.string=Jane%20Austen', member)).toEqual(['Emma']);
      expect(await sortedNames('author.string.regex=/./', member)).toEqual(['Dune', 'Emma', 'Primer']);
      const anonymous = await get('author.string=Jane%20Austen', null);
      expect([anonymous.status, anonymous.body.entities, anonymous.body.count]).toEqual([200, [], 0]);
    });

    it('a label of an entity the caller cannot read is matched only where the book they read shows it', async () => {
      // `Anonymous` is private to the owner, yet its name is the label the owner's book carries: a
      // member reading the book reads that label in its answer, so the filter tells nothing more.
      const [primer] = await entities('author.string=Anonymous&props=name,author', member);
      expect(primer!.author).toEqual([expect.objectContaining({ reference: id.secret, string: 'Anonymous' })]);
      expect((await get(`_type.reference=${id.authorType}&name.string=Anonymous`, member)).body.count).toBe(0);
    });

    it('counts and sorts by label within the caller’s visibility', async () => {
      const res = await get('author.string.exists=true&sort=author.string&limit=0', member);
      expect([res.status, res.body.count]).toEqual([200, 3]);
    });
  });

  describe('<property>._id.exists: whether the entity has any value of the property (item 5, GAP-6)', () => {
    it('R2 add-from, as the client sends it: no type defines add_from on types, so none has one (200, not 400)', async () => {
      const res = await get('_type.string=entity&add_from._id.exists=true&props=name,label');
      expect([res.status, res.body.entities, res.body.count]).toEqual([200, [], 0]);
      expect(await names('_type.string=entity&add_from._id.exists=false&props=name')).toEqual(expect.arrayContaining(['book', 'folder', 'menu']));
    });

    it('R2 where a type defines it: the menu entries that say where to add from', async () => {
      const found = await entities('_type.string=menu&add_from._id.exists=true&props=name,add_from');
      expect(found.map((entry) => [nameOf(entry), entry.add_from.map((v: { reference: string }) => v.reference)])).toEqual([['Books', [id.shelf]]]);
      expect(await names('_type.string=menu&add_from._id.exists=false')).toEqual(['Authors']);
    });

    it('R9a the columns of a child table: table._id.exists on definitions (none here: an empty list, and the client falls back to R9b)', async () => {
      const res = await get(`_parent.reference=${id.book}&table._id.exists=true&props=name,label,type,decimals&sort=ordinal.number`);
      expect([res.status, res.body.entities]).toEqual([200, []]);
      expect(await names(`_parent.reference=${id.book}&table._id.exists=false&props=name,label,type&sort=ordinal.number`)).toEqual(['author', 'name', 'done', 'photo']);
      expect(await names(`_parent.reference=${id.book}&name.string=name&props=name,label,type,decimals`)).toEqual(['name']);
    });

    it.each<[string, string[]]>([
      ['author._id.exists=true', ['Dune', 'Emma', 'Persuasion', 'Primer']],
      ['author._id.exists=false', ['Untitled']],
      ['done._id.exists=false', ['Primer', 'Untitled']],
      ['photo._id.exists=true', []],
    ])(`_type.reference=<book>&%s`, async (query, expected) => {
      expect(await sortedNames(`_type.reference=${id.book}&${query}`)).toEqual(expected);
    });
  });

  describe('sorts the client’s tables send (GAP-7)', () => {
    const shelf = () => `_parent.reference=${id.shelf}&_type.reference=${id.book}&props=photo,_sharing,_owner,_editor,name,author&limit=25&skip=0`;

    it('R10 sort=author.string: by label, an entity without one first ascending, last descending', async () => {
      expect(await names(`${shelf()}&sort=author.string`)).toEqual(['Untitled', 'Primer', 'Dune', 'Emma', 'Persuasion']);
      expect(await names(`${shelf()}&sort=-author.string,name.string`)).toEqual(['Emma', 'Persuasion', 'Dune', 'Primer', 'Untitled']);
      const res = await get(`${shelf()}&sort=author.string`);
      expect(res.body.count).toBe(5);
      for (const row of res.body.entities) expect(row._owner.map((v: { reference: string }) => v.reference)).toContain(t.owner.id);
    });

    it('sort=done.boolean: false before true, none first', async () => {
      expect(await names(`${shelf()}&sort=done.boolean,name.string`)).toEqual(['Primer', 'Untitled', 'Dune', 'Persuasion', 'Emma']);
      expect((await names(`${shelf()}&sort=-done.boolean,name.string`)).slice(0, 1)).toEqual(['Emma']);
    });

    it('sort=author.reference: by the id, so a column header never fails', async () => {
      const byId = [id.austen, id.herbert, id.secret].sort();
      const expected = ['Untitled', ...byId.flatMap((author) => (author === id.austen ? ['Emma', 'Persuasion'] : author === id.herbert ? ['Dune'] : ['Primer']))];
      expect(await names(`${shelf()}&sort=author.reference,name.string`)).toEqual(expected);
    });

    it('pages a label sort with its cursor, each entity once', async () => {
      const seen: string[] = [];
      let next: string | undefined;
      do {
        const res = await get(`${shelf().replace('limit=25&skip=0', 'limit=2')}&sort=author.string${next ? `&after=${next}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.entities.map(nameOf));
        next = res.body.next;
      } while (next);
      expect(seen).toEqual(['Untitled', 'Primer', 'Dune', 'Emma', 'Persuasion']);
    });

    it.each<[string, RegExp]>([
      ['photo.file', /"photo\.file" is not <property>\.<field>.*filename/],
      ['author.number', /"author" is reference\/string, not number/],
      ['nothing.string', /no type in this query defines the property "nothing"/],
    ])('sort=%s is 400 naming sort', async (sort, message) => {
      const res = await get(`_type.reference=${id.book}&sort=${sort}`);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ parameter: 'sort', message: expect.stringMatching(message) }]);
    });
  });

  describe('right lists filter as they are shown, cumulative (GAP-4)', () => {
    const folders = (query: string, by: Person) => sortedNames(`_type.reference=${id.folder}&${query}`, by);

    it('R11p the parents picker: _expander.reference=<me> finds what Mia owns, edits or expands', async () => {
      const res = await get(`_expander.reference=${mia.id}&_type.reference.in=${id.folder},${id.book}&q=&props=_type,name&sort=name.string&limit=100`, mia);
      expect(res.status).toBe(200);
      expect(res.body.entities.map(nameOf)).toEqual(['Edited', 'Expanded', 'Mine']);
      expect(res.body.count).toBe(3);
      for (const found of res.body.entities) expect(found._type[0]).toMatchObject({ reference: id.folder, string: 'folder' });
    });

    it.each<[string, string[]]>([
      ['_owner', ['Mine']],
      ['_editor', ['Edited', 'Mine']],
      ['_expander', ['Edited', 'Expanded', 'Mine']],
      ['_viewer', ['Edited', 'Expanded', 'Mine', 'Viewed']],
    ])('%s.reference=<Mia>, as Mia', async (right, expected) => {
      expect(await folders(`${right}.reference=${mia.id}`, mia)).toEqual(expected);
      expect(await folders(`${right}.reference.in=${member.id},${mia.id}`, mia)).toEqual(expected);
    });

    it('the database owner asking about Mia sees only what they read themselves', async () => {
      expect(await folders(`_viewer.reference=${mia.id}`, t.owner)).toEqual(['Edited', 'Expanded', 'Viewed']);
      expect(await folders(`_expander.reference=${t.owner.id}`, t.owner)).toEqual(['Closed', 'Edited', 'Expanded', 'Shelf', 'Viewed']);
    });

    it('ne and exists read the shown list too', async () => {
      // Someone other than Mia is an editor or owner: every folder she reads but her own.
      expect(await folders(`_editor.reference.ne=${mia.id}`, mia)).toEqual(['Edited', 'Expanded', 'Shelf', 'Viewed']);
      expect(await folders('_expander._id.exists=true', mia)).toEqual(['Edited', 'Expanded', 'Mine', 'Shelf', 'Viewed']);
      expect(await folders('_expander.reference.exists=false', mia)).toEqual([]);
      expect(await folders('_editor.string=Mia', mia)).toEqual(['Edited', 'Mine']);
    });
  });

  describe('hostile input: a 400 naming the parameter, never a 500', () => {
    it.each<[string, string]>([
      ['__proto__._id.exists=true', '__proto__._id.exists'],
      ['constructor.string=x', 'constructor.string'],
      ['constructor.string.in=a,b', 'constructor.string.in'],
      ['x._id.eq=true', 'x._id.eq'],
      ['x._id=true', 'x._id'],
      ['x._id.in=a,b', 'x._id.in'],
      ['x._id.exists=maybe', 'x._id.exists'],
      ['x._id.exists=%7B%22%24ne%22%3Anull%7D', 'x._id.exists'],
      ['x._id.exists.x=true', 'x._id.exists.x'],
      ['__read._id.exists=true', '__read._id.exists'],
      ['_api_key.string=x', '_api_key.string'],
      ['_api_key.string.regex=/./', '_api_key.string.regex'],
      ['sort=_api_key.string', 'sort'],
      ['sort=x._id', 'sort'],
      ['sort=__proto__.string', 'sort'],
      [`_parent.string.in=${Array.from({ length: 1001 }, (_, i) => `t${i}`).join(',')}`, '_parent.string.in'],
      [`author.string.regex=/${'a'.repeat(513)}/`, 'author.string.regex'],
      ['author.string.regex=/(a)%5C1/', 'author.string.regex'],
      ['author.string.regex=/(?=a)/', 'author.string.regex'],
      ['author.string.gt=a', 'author.string.gt'],
      ['done.string=true', 'done.string'],
    ])('%s', async (query, parameter) => {
      const res = await get(`_type.reference=${id.book}&${query}`);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter })]));
    });

    it('an `in` of 1000 labels is fine (through POST /entity/query, too long for a URL otherwise)', async () => {
      const labels = [...Array.from({ length: 999 }, (_, i) => `t${i}`), 'Shelf'].join(',');
      const res = await request(api.app).post(`/api/${t.db}/entity/query`).set('Authorization', t.owner.auth).send({ '_parent.string.in': labels, 'name.string': 'Dune' });
      expect([res.status, res.body.entities?.map(nameOf)]).toEqual([200, ['Dune']]);
    });
  });
});
