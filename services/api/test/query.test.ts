import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Definition, type Person, type TestTenant } from './tenant';

/**
 * GET /api/{db}/entity on the real stack (SPEC §7, interface §4.2): every operator on every type
 * it applies to, with ANY-value semantics on list and multilingual properties; AND of filters;
 * multi-field sorting with ties broken by `_id`; stable paging; `props`; `q`; `count`.
 * And reference_query (SPEC §5), which uses the same filter syntax.
 */

/** Re-encodes `key=value&…` so that `+`, `/`, `$`, `{`… reach the server as written. */
function encode(query: string): string {
  return query
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? encodeURIComponent(pair) : `${encodeURIComponent(pair.slice(0, at))}=${encodeURIComponent(pair.slice(at + 1))}`;
    })
    .join('&');
}

/** Runs `tasks` with at most `width` in flight; results in order. */
async function runAll<T>(tasks: (() => Promise<T>)[], width = 8): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]!();
      }
    }),
  );
  return results;
}

/**
 * Like `t.defineType`, but writes the definitions side by side (they have distinct names), which
 * saves seconds on a slow store.
 */
async function defineTypeAtOnce(t: TestTenant, name: string, definitions: Definition[]): Promise<string> {
  const type = await t.create([
    { type: '_type', reference: t.types.entity },
    { type: 'name', string: name },
    { type: '_sharing', string: 'domain' },
  ]);
  if (type.status !== 201) throw new Error(`type ${name}: ${type.status} ${JSON.stringify(type.body)}`);
  const results = await runAll(
    definitions.map((definition) => () =>
      t.create([
        { type: '_type', reference: t.types.property },
        { type: '_parent', reference: type.body._id },
        { type: 'name', string: definition.name },
        { type: 'type', string: definition.type },
        ...(['list', 'multilingual', 'search'] as const).flatMap((flag) => (definition[flag] ? [{ type: flag, boolean: true }] : [])),
      ]),
    ),
    5,
  );
  for (const res of results) if (res.status !== 201) throw new Error(`definition of ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return type.body._id as string;
}

type Listed = Record<string, { string?: string; datetime?: string; reference?: string; number?: number }[] | string>;

describe('GET /api/{db}/entity: filters, sort, paging, props, q (SPEC §7)', () => {
  let api: TestApi;
  let t: TestTenant;
  let item: string;
  let row: string;
  /** Reference targets. */
  const R: string[] = [];
  /** Item ids by title, in creation order. */
  const ids: Record<string, string> = {};
  /** Row ids in creation order. */
  const rows: string[] = [];
  const rowData: { id: string; group: string; n: number }[] = [];
  const GROUPS = ['x', 'y', 'z'];

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    t = await testTenant(api);
    let target = '';
    [target, row, item] = await Promise.all([
      t.defineType('target', [{ name: 'name', type: 'string' }]),
      t.defineType('row', [
        { name: 'group', type: 'string' },
        { name: 'n', type: 'number' },
      ]),
      defineTypeAtOnce(t, 'item', [
      { name: 'title', type: 'string', search: true },
      { name: 'tags', type: 'string', list: true },
      { name: 'label', type: 'string', multilingual: true, search: true },
      { name: 'summary', type: 'text', search: true },
      { name: 'note', type: 'string' },
      { name: 'qty', type: 'number' },
      { name: 'scores', type: 'number', list: true },
      { name: 'flag', type: 'boolean' },
      { name: 'day', type: 'date' },
      { name: 'days', type: 'date', list: true },
      { name: 'at', type: 'datetime' },
      { name: 'ats', type: 'datetime', list: true },
      { name: 'ref', type: 'reference' },
      { name: 'refs', type: 'reference', list: true },
      { name: 'doc', type: 'file', list: true },
      ]),
    ]);
    for (const res of await Promise.all(['one', 'two', 'three'].map((name) => t.create([{ type: '_type', reference: target }, { type: 'name', string: name }])))) {
      expect(res.status).toBe(201);
      R.push(res.body._id);
    }
    const [R1, R2, R3] = R;
    const s = (type: string, ...strings: string[]) => strings.map((string) => ({ type, string }));
    const n = (type: string, ...numbers: number[]) => numbers.map((number) => ({ type, number }));
    const items: [string, object[]][] = [
      [
        'Alpha',
        [
          ...s('tags', 'red', 'blue'),
          { type: 'label', string: 'Hello', language: 'en' },
          { type: 'label', string: 'Tere', language: 'et' },
          ...s('summary', 'Crème Brûlée recipe\nsecond line'),
          ...s('note', 'hidden secret'),
          ...n('qty', 10),
          ...n('scores', 1, 100),
          { type: 'flag', boolean: true },
          { type: 'day', date: '2024-01-15' },
          { type: 'days', date: '2024-01-01' },
          { type: 'days', date: '2024-12-31' },
          { type: 'at', datetime: '2024-01-02T03:04:05Z' },
          { type: 'ats', datetime: '2024-01-01T00:00:00Z' },
          { type: 'ats', datetime: '2024-06-01T14:00:00+02:00' },
          { type: 'ref', reference: R1 },
          { type: 'refs', reference: R1 },
          { type: 'refs', reference: R2 },
          { type: 'doc', filename: 'report.pdf', filesize: 1000, filetype: 'application/pdf' },
          { type: 'doc', filename: 'photo.png', filesize: 5000, filetype: 'image/png' },
        ],
      ],
      [
        'Beta',
        [
          ...s('tags', 'green'),
          { type: 'label', string: 'Goodbye', language: 'en' },
          ...s('summary', 'Plain text'),
          ...n('qty', 20),
          ...n('scores', 50),
          { type: 'flag', boolean: false },
          { type: 'day', date: '2024-02-20' },
          { type: 'days', date: '2024-03-01' },
          { type: 'at', datetime: '2024-03-01T00:00:00Z' },
          { type: 'ats', datetime: '2024-03-01T00:00:00Z' },
          { type: 'ref', reference: R2 },
          { type: 'refs', reference: R3 },
          { type: 'doc', filename: 'notes.txt', filesize: 200, filetype: 'text/plain' },
        ],
      ],
      [
        'Gamma',
        [
          ...s('tags', 'red'),
          { type: 'label', string: 'Head aega', language: 'et' },
          ...s('summary', 'Kreem Brulee'),
          ...n('qty', 30),
          ...n('scores', 10, 20),
          { type: 'flag', boolean: true },
          { type: 'day', date: '2024-03-10' },
          { type: 'at', datetime: '2024-12-31T23:59:59Z' },
          { type: 'ref', reference: R3 },
          { type: 'refs', reference: R2 },
          { type: 'refs', reference: R3 },
        ],
      ],
      ['Delta', [...n('qty', -5)]],
      ['épée', [...s('tags', 'blue'), ...n('qty', 20)]],
    ];
    for (const [title, values] of items) {
      const res = await t.create([{ type: '_type', reference: item }, { type: 'title', string: title }, ...values]);
      if (res.status !== 201) throw new Error(`${title}: ${res.status} ${JSON.stringify(res.body)}`);
      ids[title] = res.body._id;
    }

    // Created side by side; `rows` is then in _id order, which is creation order (ids and
    // `_created` are taken together when the request is handled).
    const created = await runAll(
      Array.from({ length: 25 }, (_, i) => async () => {
        const res = await t.create([
          { type: '_type', reference: row },
          { type: 'group', string: GROUPS[i % 3] },
          { type: 'n', number: i % 4 },
        ]);
        expect(res.status).toBe(201);
        return { id: res.body._id as string, group: GROUPS[i % 3]!, n: i % 4 };
      }),
      5,
    );
    rowData.push(...created.sort((a, b) => (a.id < b.id ? -1 : 1)));
    rows.push(...rowData.map((r) => r.id));
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const get = (query: string, by: Person | undefined = t.owner) => {
    const req = request(api.app).get(`/api/${t.db}/entity?${query}`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  const items = (query: string) => get(encode(`_type.reference=${item}&${query}`));
  const rowsOf = (query: string) => get(encode(`_type.reference=${row}&${query}`));
  const titlesOf = (res: request.Response): string[] => res.body.entities.map((e: Listed) => (e.title as { string: string }[])[0]!.string);
  const idsOf = (res: request.Response): string[] => res.body.entities.map((e: Listed) => e._id);

  /** The titles matching `query` (as a set), and `count` agrees with them. */
  async function matching(query: string): Promise<string[]> {
    return matchesOf(await items(query));
  }
  function matchesOf(res: request.Response): string[] {
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
    expect(res.body.count).toBe(res.body.entities.length);
    return titlesOf(res).sort();
  }
  const sorted = (...titles: string[]) => [...titles].sort();

  describe('every operator on every type it applies to, ANY value of lists and languages', () => {
    // R[i] are resolved lazily: the table is built before beforeAll runs.
    const cases: [string, () => string, string[]][] = [
      // string, single value
      ['string eq', () => 'title.string=Alpha', ['Alpha']],
      ['string eq is exact (case)', () => 'title.string=alpha', []],
      ['string eq with accents', () => 'title.string=épée', ['épée']],
      ['string ne', () => 'title.string.ne=Alpha', ['Beta', 'Gamma', 'Delta', 'épée']],
      ['string in', () => 'title.string.in=Alpha,Gamma,Nope', ['Alpha', 'Gamma']],
      ['string regex /i', () => 'title.string.regex=/^[ab]/i', ['Alpha', 'Beta']],
      ['string regex is case-sensitive without i', () => 'title.string.regex=/^[ab]/', []],
      ['string exists=true', () => 'title.string.exists=true', ['Alpha', 'Beta', 'Gamma', 'Delta', 'épée']],
      ['string exists=false', () => 'title.string.exists=false', []],
      // string, list
      ['list string eq: any value', () => 'tags.string=red', ['Alpha', 'Gamma']],
      ['list string eq: any value (2)', () => 'tags.string=blue', ['Alpha', 'épée']],
      ['list string ne: some value differs', () => 'tags.string.ne=red', ['Alpha', 'Beta', 'épée']],
      ['list string in', () => 'tags.string.in=green,blue', ['Alpha', 'Beta', 'épée']],
      ['list string regex', () => 'tags.string.regex=/^gr/', ['Beta']],
      ['list string exists=false', () => 'tags.string.exists=false', ['Delta']],
      // string, multilingual
      ['multilingual eq: any language', () => 'label.string=Tere', ['Alpha']],
      ['multilingual eq: the other language', () => 'label.string=Hello', ['Alpha']],
      ['multilingual ne', () => 'label.string.ne=Hello', ['Alpha', 'Beta', 'Gamma']],
      ['multilingual in', () => 'label.string.in=Hello,Goodbye', ['Alpha', 'Beta']],
      ['multilingual regex', () => 'label.string.regex=/aega$/', ['Gamma']],
      ['multilingual exists', () => 'label.string.exists=true', ['Alpha', 'Beta', 'Gamma']],
      // text filters as string; regex flags m and s
      ['text eq', () => 'summary.string=Plain text', ['Beta']],
      ['text regex i', () => 'summary.string.regex=/brulee/i', ['Gamma']],
      ['regex m: ^ at a line start', () => 'summary.string.regex=/^second line/m', ['Alpha']],
      ['regex without m: ^ only at the start', () => 'summary.string.regex=/^second line/', []],
      ['regex s: . matches a newline', () => 'summary.string.regex=/recipe.second/s', ['Alpha']],
      ['regex without s: . does not match a newline', () => 'summary.string.regex=/recipe.second/', []],
      ['regex u', () => 'summary.string.regex=/Cr\\p{L}me/u', ['Alpha']],
      // number, single
      ['number eq', () => 'qty.number=20', ['Beta', 'épée']],
      ['number eq negative', () => 'qty.number=-5', ['Delta']],
      ['number ne', () => 'qty.number.ne=20', ['Alpha', 'Gamma', 'Delta']],
      ['number gt', () => 'qty.number.gt=10', ['Beta', 'Gamma', 'épée']],
      ['number gte', () => 'qty.number.gte=10', ['Alpha', 'Beta', 'Gamma', 'épée']],
      ['number lt', () => 'qty.number.lt=10', ['Delta']],
      ['number lte', () => 'qty.number.lte=10', ['Alpha', 'Delta']],
      ['number in', () => 'qty.number.in=10,30', ['Alpha', 'Gamma']],
      ['number exists', () => 'qty.number.exists=true', ['Alpha', 'Beta', 'Gamma', 'Delta', 'épée']],
      ['number 1e1 is 10', () => 'qty.number=1e1', ['Alpha']],
      // number, list
      ['list number eq', () => 'scores.number=20', ['Gamma']],
      ['list number gt: any value', () => 'scores.number.gt=60', ['Alpha']],
      ['list number lt: any value', () => 'scores.number.lt=5', ['Alpha']],
      ['list number gte and lte hold for any (possibly different) values', () => 'scores.number.gte=15&scores.number.lte=25', ['Alpha', 'Gamma']],
      ['list number ne', () => 'scores.number.ne=50', ['Alpha', 'Gamma']],
      ['list number in', () => 'scores.number.in=50,20', ['Beta', 'Gamma']],
      ['list number exists=false', () => 'scores.number.exists=false', ['Delta', 'épée']],
      // boolean
      ['boolean true', () => 'flag.boolean=true', ['Alpha', 'Gamma']],
      ['boolean false', () => 'flag.boolean=false', ['Beta']],
      ['boolean exists=false', () => 'flag.boolean.exists=false', ['Delta', 'épée']],
      // date, single
      ['date eq', () => 'day.date=2024-02-20', ['Beta']],
      ['date ne', () => 'day.date.ne=2024-02-20', ['Alpha', 'Gamma']],
      ['date gt', () => 'day.date.gt=2024-02-01', ['Beta', 'Gamma']],
      ['date gte', () => 'day.date.gte=2024-02-20', ['Beta', 'Gamma']],
      ['date lt', () => 'day.date.lt=2024-02-20', ['Alpha']],
      ['date lte', () => 'day.date.lte=2024-02-20', ['Alpha', 'Beta']],
      ['date in', () => 'day.date.in=2024-01-15,2024-03-10', ['Alpha', 'Gamma']],
      ['date exists', () => 'day.date.exists=true', ['Alpha', 'Beta', 'Gamma']],
      // date, list
      ['list date gt', () => 'days.date.gt=2024-06-01', ['Alpha']],
      ['list date lt', () => 'days.date.lt=2024-02-01', ['Alpha']],
      ['list date eq', () => 'days.date=2024-03-01', ['Beta']],
      ['list date ne', () => 'days.date.ne=2024-01-01', ['Alpha', 'Beta']],
      ['list date in', () => 'days.date.in=2024-12-31,2024-03-01', ['Alpha', 'Beta']],
      // datetime, single (offsets are normalised to UTC on both sides)
      ['datetime eq', () => 'at.datetime=2024-01-02T03:04:05Z', ['Alpha']],
      ['datetime eq, another offset', () => 'at.datetime=2024-01-02T05:04:05+02:00', ['Alpha']],
      ['datetime eq, milliseconds', () => 'at.datetime=2024-01-02T03:04:05.000Z', ['Alpha']],
      ['datetime ne', () => 'at.datetime.ne=2024-03-01T00:00:00Z', ['Alpha', 'Gamma']],
      ['datetime gt', () => 'at.datetime.gt=2024-03-01T00:00:00Z', ['Gamma']],
      ['datetime gte', () => 'at.datetime.gte=2024-03-01T00:00:00Z', ['Beta', 'Gamma']],
      ['datetime lt', () => 'at.datetime.lt=2024-03-01T00:00:00Z', ['Alpha']],
      ['datetime lte', () => 'at.datetime.lte=2024-03-01T01:00:00+01:00', ['Alpha', 'Beta']],
      ['datetime in', () => 'at.datetime.in=2024-01-02T03:04:05Z,2024-12-31T23:59:59.000Z', ['Alpha', 'Gamma']],
      ['datetime exists=false', () => 'at.datetime.exists=false', ['Delta', 'épée']],
      // datetime, list
      ['list datetime gt', () => 'ats.datetime.gt=2024-05-01T00:00:00Z', ['Alpha']],
      ['list datetime eq, stored with an offset', () => 'ats.datetime=2024-06-01T12:00:00Z', ['Alpha']],
      ['list datetime lt', () => 'ats.datetime.lt=2024-02-01T00:00:00Z', ['Alpha']],
      ['list datetime ne', () => 'ats.datetime.ne=2024-03-01T00:00:00Z', ['Alpha']],
      // reference, single
      ['reference eq', () => `ref.reference=${R[0]}`, ['Alpha']],
      ['reference ne', () => `ref.reference.ne=${R[0]}`, ['Beta', 'Gamma']],
      ['reference in', () => `ref.reference.in=${R[0]},${R[2]}`, ['Alpha', 'Gamma']],
      ['reference exists=false', () => 'ref.reference.exists=false', ['Delta', 'épée']],
      ['reference to nothing', () => 'ref.reference=000000000000000000000000', []],
      // reference, list
      ['list reference eq', () => `refs.reference=${R[1]}`, ['Alpha', 'Gamma']],
      ['list reference ne', () => `refs.reference.ne=${R[2]}`, ['Alpha', 'Gamma']],
      ['list reference in', () => `refs.reference.in=${R[2]}`, ['Beta', 'Gamma']],
      ['list reference exists', () => 'refs.reference.exists=true', ['Alpha', 'Beta', 'Gamma']],
      // file (list): filename and filetype as strings, filesize as a number
      ['filename eq', () => 'doc.filename=report.pdf', ['Alpha']],
      ['filename eq, the second file', () => 'doc.filename=photo.png', ['Alpha']],
      ['filename ne', () => 'doc.filename.ne=report.pdf', ['Alpha', 'Beta']],
      ['filename in', () => 'doc.filename.in=notes.txt,nope.doc', ['Beta']],
      ['filename regex', () => 'doc.filename.regex=/\\.(png|txt)$/', ['Alpha', 'Beta']],
      ['filename exists=false', () => 'doc.filename.exists=false', ['Gamma', 'Delta', 'épée']],
      ['filesize eq', () => 'doc.filesize=200', ['Beta']],
      ['filesize ne', () => 'doc.filesize.ne=200', ['Alpha']],
      ['filesize gt', () => 'doc.filesize.gt=2000', ['Alpha']],
      ['filesize gte', () => 'doc.filesize.gte=1000', ['Alpha']],
      ['filesize lt', () => 'doc.filesize.lt=1000', ['Beta']],
      ['filesize lte', () => 'doc.filesize.lte=1000', ['Alpha', 'Beta']],
      ['filesize in', () => 'doc.filesize.in=5000,1', ['Alpha']],
      ['filesize exists', () => 'doc.filesize.exists=true', ['Alpha', 'Beta']],
      ['filetype eq', () => 'doc.filetype=text/plain', ['Beta']],
      ['filetype ne', () => 'doc.filetype.ne=text/plain', ['Alpha']],
      ['filetype in', () => 'doc.filetype.in=application/pdf,text/plain', ['Alpha', 'Beta']],
      ['filetype regex', () => 'doc.filetype.regex=/^image\\//', ['Alpha']],
      // system properties
      ['_created.reference', () => `_created.reference=${t.owner.id}`, ['Alpha', 'Beta', 'Gamma', 'Delta', 'épée']],
      ['_created.datetime.gt', () => '_created.datetime.gt=2000-01-01T00:00:00Z', ['Alpha', 'Beta', 'Gamma', 'Delta', 'épée']],
      ['_created.datetime.lt', () => '_created.datetime.lt=2000-01-01T00:00:00Z', []],
      ['_owner.reference', () => `_owner.reference=${t.owner.id}`, ['Alpha', 'Beta', 'Gamma', 'Delta', 'épée']],
      // AND of several filters
      ['AND: three filters', () => 'tags.string=red&flag.boolean=true&qty.number.gt=15', ['Gamma']],
      ['AND: list and number', () => 'tags.string=blue&qty.number=20', ['épée']],
      ['AND: regex, exists, date', () => 'title.string.regex=/a/&scores.number.exists=true&day.date.lt=2024-03-01', ['Alpha', 'Beta']],
      ['AND: contradictory', () => 'flag.boolean=true&flag.boolean.exists=false', []],
      ['AND: reference and file', () => `refs.reference=${R[1]}&doc.filesize.gt=0`, ['Alpha']],
    ];

    // Each case is its own test; the requests run side by side up front (FerretDB is not fast).
    const answers = new Map<string, request.Response>();
    beforeAll(async () => {
      const responses = await runAll(cases.map(([, query]) => () => items(query())));
      cases.forEach(([name], i) => answers.set(name, responses[i]!));
    });

    it.each(cases)('%s', (name, _query, expected) => {
      expect(matchesOf(answers.get(name)!)).toEqual(sorted(...expected));
    });
  });

  describe('sort: multi-field, ties by _id, lists by their smallest/largest value', () => {
    const sorts: [string, string[]][] = [
      ['sort=qty.number', ['Delta', 'Alpha', 'Beta', 'épée', 'Gamma']],
      ['sort=qty.number,title.string', ['Delta', 'Alpha', 'Beta', 'épée', 'Gamma']],
      ['sort=-qty.number,title.string', ['Gamma', 'Beta', 'épée', 'Alpha', 'Delta']],
      ['sort=-qty.number,-title.string', ['Gamma', 'épée', 'Beta', 'Alpha', 'Delta']],
      ['sort=qty.number,-title.string', ['Delta', 'Alpha', 'épée', 'Beta', 'Gamma']],
      // case- and accent-insensitive strings
      ['sort=title.string', ['Alpha', 'Beta', 'Delta', 'épée', 'Gamma']],
      ['sort=-title.string', ['Gamma', 'épée', 'Delta', 'Beta', 'Alpha']],
      // lists: ascending by the smallest value, descending by the largest
      ['scores.number.exists=true&sort=scores.number', ['Alpha', 'Gamma', 'Beta']],
      ['scores.number.exists=true&sort=-scores.number', ['Alpha', 'Beta', 'Gamma']],
      ['tags.string.exists=true&sort=tags.string,title.string', ['Alpha', 'épée', 'Beta', 'Gamma']],
      ['tags.string.exists=true&sort=-tags.string,title.string', ['Alpha', 'Gamma', 'Beta', 'épée']],
      ['label.string.exists=true&sort=label.string', ['Beta', 'Gamma', 'Alpha']],
      ['label.string.exists=true&sort=-label.string', ['Alpha', 'Gamma', 'Beta']],
      ['days.date.exists=true&sort=days.date', ['Alpha', 'Beta']],
      ['days.date.exists=true&sort=-days.date', ['Alpha', 'Beta']],
      ['ats.datetime.exists=true&sort=ats.datetime', ['Alpha', 'Beta']],
      ['ats.datetime.exists=true&sort=-ats.datetime', ['Alpha', 'Beta']],
      ['day.date.exists=true&sort=-day.date', ['Gamma', 'Beta', 'Alpha']],
      ['at.datetime.exists=true&sort=at.datetime', ['Alpha', 'Beta', 'Gamma']],
      ['doc.filesize.exists=true&sort=doc.filesize', ['Beta', 'Alpha']],
      ['doc.filesize.exists=true&sort=-doc.filesize', ['Alpha', 'Beta']],
      ['doc.filename.exists=true&sort=doc.filename', ['Beta', 'Alpha']],
      ['doc.filename.exists=true&sort=-doc.filename', ['Alpha', 'Beta']],
      ['doc.filetype.exists=true&sort=doc.filetype', ['Alpha', 'Beta']],
      ['sort=_created.datetime', ['Alpha', 'Beta', 'Gamma', 'Delta', 'épée']],
      ['sort=-_created.datetime', ['épée', 'Delta', 'Gamma', 'Beta', 'Alpha']],
    ];
    const answers = new Map<string, request.Response>();
    beforeAll(async () => {
      const responses = await runAll(sorts.map(([query]) => () => items(query)));
      sorts.forEach(([query], i) => answers.set(query, responses[i]!));
    });

    it.each(sorts)('%s', (query, expected) => {
      const res = answers.get(query)!;
      expect(res.status).toBe(200);
      expect(titlesOf(res)).toEqual(expected);
    });

    it('ties are broken by _id (ascending keys: ascending _id)', async () => {
      // qty 20 is a tie between Beta and épée; Beta was created first, so its _id is smaller.
      expect(ids.Beta! < ids['épée']!).toBe(true);
      expect(titlesOf(await items('qty.number=20&sort=qty.number'))).toEqual(['Beta', 'épée']);
      const res = await rowsOf('sort=group.string&limit=1000');
      const list = idsOf(res);
      for (const group of GROUPS) {
        const members = rowData.filter((r) => r.group === group).map((r) => r.id);
        const start = list.indexOf(members[0]!);
        expect(list.slice(start, start + members.length)).toEqual(members);
      }
    });

    it('ties under a descending key are broken by _id too (monotonic, either direction)', async () => {
      const list = idsOf(await rowsOf('sort=-group.string&limit=1000'));
      expect(list).toHaveLength(25);
      for (const group of [...GROUPS].reverse()) {
        const members = rowData.filter((r) => r.group === group).map((r) => r.id);
        const slice = list.splice(0, members.length);
        expect([members, [...members].reverse()]).toContainEqual(slice);
      }
    });

    it('multi-field sort over the rows', async () => {
      const res = await rowsOf('sort=group.string,-n.number&limit=1000');
      const expected = [...rowData]
        .sort((a, b) => a.group.localeCompare(b.group) || b.n - a.n || (a.id < b.id ? -1 : 1))
        .map((r) => r.id);
      expect(idsOf(res)).toEqual(expected);
    });
  });

  describe('paging is stable: no duplicates, no gaps, same as one big page', () => {
    it.each(['', 'sort=group.string', 'sort=-group.string', 'sort=n.number,-group.string', 'sort=-_created.datetime', 'sort=_created.datetime'])(
      '25 rows, limit 7, %s',
      async (sort) => {
        const whole = await rowsOf(`${sort}&limit=1000`);
        expect(whole.body.count).toBe(25);
        const all = idsOf(whole);
        expect(new Set(all).size).toBe(25);
        const pages: string[] = [];
        const skips = [0, 7, 14, 21];
        const responses = await Promise.all(skips.map((skip) => rowsOf(`${sort}&limit=7&skip=${skip}`)));
        for (const [i, res] of responses.entries()) {
          const skip = skips[i]!;
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ count: 25, limit: 7, skip });
          expect(res.body.entities).toHaveLength(Math.min(7, 25 - skip));
          pages.push(...idsOf(res));
        }
        expect(pages).toEqual(all);
        expect(new Set(pages).size).toBe(25);
        expect([...pages].sort()).toEqual([...rows].sort());
      },
    );

    it('sort=-_created.datetime is newest first; skip past the end is an empty page with the count', async () => {
      expect(idsOf(await rowsOf('sort=-_created.datetime&limit=1000'))).toEqual([...rows].reverse());
      expect(idsOf(await rowsOf('sort=_created.datetime&limit=1000'))).toEqual(rows);
      const past = await rowsOf('skip=25&limit=7');
      expect(past.body).toEqual({ entities: [], count: 25, limit: 7, skip: 25 });
    });
  });

  describe('count, limit=0, props', () => {
    it('count is every match, not just the page', async () => {
      const res = await rowsOf('n.number.gte=1&limit=5');
      expect(res.body.entities).toHaveLength(5);
      expect(res.body.count).toBe(rowData.filter((r) => r.n >= 1).length);
      const second = await rowsOf('group.string=x&limit=2&skip=3');
      expect(second.body).toMatchObject({ count: 9, limit: 2, skip: 3 });
      expect(second.body.entities).toHaveLength(2);
    });

    it('limit=0 returns only the count', async () => {
      expect((await rowsOf('limit=0')).body).toEqual({ entities: [], count: 25, limit: 0, skip: 0 });
      expect((await rowsOf('limit=0&group.string=y')).body).toEqual({ entities: [], count: 8, limit: 0, skip: 0 });
      expect((await items('limit=0&q=brul')).body).toEqual({ entities: [], count: 2, limit: 0, skip: 0 });
    });

    it('default limit is 100', async () => {
      expect((await rowsOf('')).body).toMatchObject({ limit: 100, skip: 0, count: 25 });
    });

    it('props returns only the named properties and _id, _created included', async () => {
      const res = await items('props=title,_created&sort=title.string');
      expect(res.status).toBe(200);
      expect(res.body.entities).toHaveLength(5);
      for (const entity of res.body.entities as Listed[]) {
        expect(Object.keys(entity).sort()).toEqual(['_created', '_id', 'title']);
        const [created] = entity._created as { datetime: string; reference: string }[];
        expect(created).toMatchObject({ datetime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/), reference: t.owner.id });
      }
      const only = await items('props=_created&title.string=Alpha');
      expect(Object.keys(only.body.entities[0]).sort()).toEqual(['_created', '_id']);
      const none = await items('props=nothing&title.string=Alpha');
      expect(none.body.entities).toEqual([{ _id: ids.Alpha }]);
      const list = await items('props=tags,label&title.string=Alpha');
      expect(Object.keys(list.body.entities[0]).sort()).toEqual(['_id', 'label', 'tags']);
      expect(list.body.entities[0].tags).toHaveLength(2);
      expect(list.body.entities[0].label).toHaveLength(2);
    });

    it('props with sort and filters on properties it leaves out', async () => {
      const res = await items('props=_id&sort=-qty.number,title.string&qty.number.gte=20');
      expect(res.body.entities).toEqual([{ _id: ids.Gamma }, { _id: ids.Beta }, { _id: ids['épée'] }]);
    });
  });

  describe('q: prefixes of words of searchable values, case- and accent-insensitive, AND of terms', () => {
    const searches: [string, string[]][] = [
      ['creme', ['Alpha']],
      ['CRÈME', ['Alpha']],
      ['Crème BRÛLÉE', ['Alpha']],
      ['crème-brûlée!', ['Alpha']],
      ['cr', ['Alpha']],
      ['brul', ['Alpha', 'Gamma']],
      ['BRU kre', ['Gamma']],
      ['bru rec', ['Alpha']],
      ['creme kreem', []],
      ['ecipe', []],
      ['rulee', []],
      ['alp', ['Alpha']],
      ['tere', ['Alpha']],
      ['hello', ['Alpha']],
      ['aega', ['Gamma']],
      ['EPEE', ['épée']],
      ['épé', ['épée']],
      ['second line', ['Alpha']],
      ['plain', ['Beta']],
      // values of properties without search are not found
      ['hidden', []],
      ['secret', []],
      ['red', []],
      ['report', []],
    ];
    const answers = new Map<string, request.Response>();
    beforeAll(async () => {
      const responses = await runAll(searches.map(([q]) => () => items(`q=${q}`)));
      searches.forEach(([q], i) => answers.set(q, responses[i]!));
    });

    it.each(searches)('q=%s', (q, expected) => {
      expect(matchesOf(answers.get(q)!)).toEqual(sorted(...expected));
    });

    it('q combines with filters, sort and paging; count counts all matches', async () => {
      expect(await matching('q=brul&qty.number.gt=15')).toEqual(['Gamma']);
      const res = await items('q=brul&sort=-title.string&limit=1');
      expect(titlesOf(res)).toEqual(['Gamma']);
      expect(res.body.count).toBe(2);
    });

    it('follows a changed value', async () => {
      const res = await request(api.app)
        .post(`/api/${t.db}/entity/${ids.Beta}`)
        .set('Authorization', t.owner.auth)
        .send([{ type: 'summary', string: 'Zanzibar voyage' }]);
      expect(res.status).toBe(200);
      expect(await matching('q=zanz')).toEqual(['Beta']);
      expect(await matching('q=plain')).toEqual([]);
    });

    it('says why q cannot match when the types asked about have no searchable property; says nothing otherwise', async () => {
      const none = await rowsOf('q=alpha');
      expect([none.status, none.body.entities, none.body.warnings]).toEqual([200, [], ['q matches nothing here: type "row" has no searchable property. Mark a definition "search": true to make q find its values.']]);
      const grouped = await rowsOf('q=alpha&group=group.string');
      expect(grouped.body.warnings).toEqual([expect.stringContaining('type "row" has no searchable property')]);
      expect((await items('q=brul')).body.warnings).toBeUndefined();
      expect((await items('q=nothing-matches-this')).body.warnings).toBeUndefined();
      // (A list without q, sorted by what always has its index: a sort by a property may meet this
      // database's cap of sort indexes, which the list would say: sort-indexes.test.ts.)
      expect((await rowsOf('sort=-_created.datetime')).body.warnings).toBeUndefined();
      // Over every type: one of them (item) has searchable properties.
      expect((await get(encode('q=alpha'))).body.warnings).toBeUndefined();
    });

    it(`more than 16 terms is a 400 naming q`, async () => {
      const res = await items(`q=${Array.from({ length: 17 }, (_, i) => `t${i}`).join(' ')}`);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter: 'q' })]));
      expect((await items(`q=${Array.from({ length: 16 }, () => 'creme').join(' ')}`)).status).toBe(200);
    });
  });
});

describe('reference_query (SPEC §5): filters on what a reference may point to', () => {
  let api: TestApi;
  let t: TestTenant;
  let contact: string;
  let book: string;
  let author: string;
  let editor: string;
  let writer: Person;

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    t = await testTenant(api);
    [contact, book, writer] = await Promise.all([
      t.defineType('contact', [
        { name: 'name', type: 'string' },
        { name: 'kind', type: 'string' },
      ]),
      t.defineType('book', [
        { name: 'title', type: 'string' },
        { name: 'author', type: 'reference', reference_query: `_type.reference=${t.types.person}` },
        { name: 'contributor', type: 'reference', list: true, reference_query: 'kind.string=author' },
        { name: 'other', type: 'reference' },
      ]),
      t.newPerson('Writer'),
    ]);
    const make = async (values: object[]) => {
      const res = await t.create(values);
      expect(res.status).toBe(201);
      return res.body._id as string;
    };
    [author, editor] = await Promise.all([
      make([{ type: '_type', reference: contact }, { type: 'name', string: 'A' }, { type: 'kind', string: 'author' }]),
      make([{ type: '_type', reference: contact }, { type: 'name', string: 'E' }, { type: 'kind', string: 'editor' }]),
    ]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const definition = (name: string, values: object[]) =>
    t.create([
      { type: '_type', reference: t.types.property },
      { type: '_parent', reference: book },
      { type: 'name', string: name },
      { type: 'type', string: 'reference' },
      ...values,
    ]);
  const definitionsNamed = async (name: string) =>
    (
      await request(api.app)
        .get(`/api/${t.db}/entity?${encode(`_type.reference=${t.types.property}&_parent.reference=${book}&name.string=${name}&limit=0`)}`)
        .set('Authorization', t.owner.auth)
    ).body.count as number;
  const books = async () =>
    (await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&limit=0`).set('Authorization', t.owner.auth)).body.count as number;

  it.each([
    'kind.string.like=author',
    'kind.number=abc',
    'kind=author',
    'kind.string.regex=/(/',
    'kind.string.regex=/(?=a)/',
    'sort=kind.string',
    'limit=5',
    'q=author',
    '_type.reference=not-an-id',
    'kind.string=a&kind.string=b',
  ])('a definition with reference_query %j is refused when written, nothing stored', async (query) => {
    const name = `bad${Math.abs(hash(query))}`;
    const res = await definition(name, [{ type: 'reference_query', string: query }]);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.body.errors)).toMatch(/reference_query/);
    expect(await definitionsNamed(name)).toBe(0);
  });

  it('changing a definition to an invalid reference_query is refused and changes nothing', async () => {
    const created = await definition('later', [{ type: 'reference_query', string: 'kind.string=author' }]);
    expect(created.status).toBe(201);
    const res = await request(api.app)
      .post(`/api/${t.db}/entity/${created.body._id}`)
      .set('Authorization', t.owner.auth)
      .send([{ type: 'reference_query', string: 'kind.string.nope=x' }]);
    expect(res.status).toBe(400);
    const stored = await request(api.app).get(`/api/${t.db}/entity/${created.body._id}`).set('Authorization', t.owner.auth);
    expect(stored.body.entity.reference_query.map((v: { string: string }) => v.string)).toEqual(['kind.string=author']);
  });

  it('reference_query on a property that is not a reference is refused', async () => {
    const res = await t.create([
      { type: '_type', reference: t.types.property },
      { type: '_parent', reference: book },
      { type: 'name', string: 'subtitle' },
      { type: 'type', string: 'string' },
      { type: 'reference_query', string: 'kind.string=author' },
    ]);
    expect(res.status).toBe(400);
  });

  it('_type.reference=<person type>: a person is accepted, anything else is 400 with the pointer and nothing written', async () => {
    const before = await books();
    const ok = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Fine' }, { type: 'author', reference: writer.id }]);
    expect(ok.status).toBe(201);
    const bad = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Bad' }, { type: 'author', reference: author }]);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/2/reference' })]);
    expect(await books()).toBe(before + 1);
  });

  it('kind.string=author: a matching entity is accepted, a non-matching one is 400 naming it', async () => {
    const before = await books();
    const ok = await t.create([{ type: '_type', reference: book }, { type: 'contributor', reference: author }]);
    expect(ok.status).toBe(201);
    const bad = await t.create([
      { type: '_type', reference: book },
      { type: 'contributor', reference: author },
      { type: 'contributor', reference: editor },
      { type: 'other', reference: editor },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/2/reference' })]);
    expect(await books()).toBe(before + 1);
  });

  it('adding a non-matching reference to an existing entity is 400 and changes nothing; the query is evaluated at write time', async () => {
    const created = await t.create([{ type: '_type', reference: book }, { type: 'contributor', reference: author }]);
    const id = created.body._id as string;
    const add = (reference: string) =>
      request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: 'title', string: 'New' }, { type: 'contributor', reference }]);
    const bad = await add(editor);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/1/reference' })]);
    const unchanged = await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth);
    expect(unchanged.body.entity.title).toBeUndefined();
    expect(unchanged.body.entity.contributor).toHaveLength(1);

    // Once the editor is an author too, the same reference is accepted.
    const kind = await request(api.app).post(`/api/${t.db}/entity/${editor}`).set('Authorization', t.owner.auth).send([{ type: 'kind', string: 'author' }]);
    expect(kind.status).toBe(200);
    expect((await add(editor)).status).toBe(200);
  });
});

function hash(text: string): number {
  let h = 7;
  for (const char of text) h = (h * 31 + char.charCodeAt(0)) | 0;
  return h;
}
