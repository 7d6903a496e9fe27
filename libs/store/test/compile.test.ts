import { parseListQuery, rawQueryOf, type CursorValue } from '@entia/domain';
import { compileAfter, compileFilter, compileMatch, compilePage, compileProjection, compileSort } from '@entia/store';
import { ObjectId } from 'mongodb';

/**
 * Scenario tables from a query string, as the domain parses it, to the MongoDB filter, sort and
 * projection the store sends (in the manner of PocketBase's tools/search tests): each row is an
 * input and the exact output expected for it.
 */

const ID = '5f1d7a0c9b1e8a0012345678';
const ID2 = '5f1d7a0c9b1e8a0012345679';
const READ = ['person1', 'domain', 'public'];

/** The `__av` entry of `property.field = value`, written out here rather than borrowed from the code. */
const av = (property: string, field: string, json: string) => `${property}\u001f${field}\u001f${json}`;

/** The conditions a query string compiles to, after the visibility condition every list carries. */
function conditions(query: string): unknown[] {
  const compiled = compileFilter(parseListQuery(rawQueryOf(query)), READ) as { $and: unknown[] };
  expect(compiled.$and[0]).toEqual({ __read: { $in: READ } });
  return compiled.$and.slice(1);
}

const gtOrLt = (path: string, value: unknown) => ({ $or: [{ [path]: { $gt: value } }, { [path]: { $lt: value } }] });

describe('compileFilter: every field with every operator it takes', () => {
  it.each<[string, unknown[]]>([
    // string: eq and in also name their `__av` entries, the exact condition stays beside them
    ['name.string=Ann', [{ __av: { $in: [av('name', 'string', '"Ann"')] } }, { 'name.string': { $eq: 'Ann' } }]],
    ['name.string.ne=Ann', [gtOrLt('name.string', 'Ann')]],
    ['name.string.in=a,b', [{ __av: { $in: [av('name', 'string', '"a"'), av('name', 'string', '"b"')] } }, { 'name.string': { $in: ['a', 'b'] } }]],
    ['name.string.exists=true', [{ 'name.string': { $exists: true } }]],
    ['name.string.exists=false', [{ 'name.string': { $exists: false } }]],
    ['name.string.regex=/^an/i', [{ 'name.string': { $regex: '^an', $options: 'i' } }]],
    ['name.string.regex=/a.b/msu', [{ 'name.string': { $regex: 'a.b', $options: 'ms' } }]],
    ['name.string.regex=/x/', [{ 'name.string': { $regex: 'x', $options: '' } }]],
    // a string longer than the index keeps is matched by the exact condition alone
    [`name.string=${'x'.repeat(257)}`, [{ 'name.string': { $eq: 'x'.repeat(257) } }]],
    [`name.string=${'x'.repeat(256)}`, [{ __av: { $in: [av('name', 'string', `"${'x'.repeat(256)}"`)] } }, { 'name.string': { $eq: 'x'.repeat(256) } }]],
    [`name.string.in=a,${'x'.repeat(257)}`, [{ 'name.string': { $in: ['a', 'x'.repeat(257)] } }]],
    // number
    ['n.number=1.5', [{ __av: { $in: [av('n', 'number', '1.5')] } }, { 'n.number': { $eq: 1.5 } }]],
    ['n.number.ne=-2', [gtOrLt('n.number', -2)]],
    ['n.number.gt=1', [{ 'n.number': { $gt: 1 } }]],
    ['n.number.gte=1e3', [{ 'n.number': { $gte: 1000 } }]],
    ['n.number.lt=0', [{ 'n.number': { $lt: 0 } }]],
    ['n.number.lte=0.25', [{ 'n.number': { $lte: 0.25 } }]],
    ['n.number.in=1,2', [{ __av: { $in: [av('n', 'number', '1'), av('n', 'number', '2')] } }, { 'n.number': { $in: [1, 2] } }]],
    ['n.number.exists=true', [{ 'n.number': { $exists: true } }]],
    // boolean
    ['b.boolean=true', [{ __av: { $in: [av('b', 'boolean', 'true')] } }, { 'b.boolean': { $eq: true } }]],
    ['b.boolean=false', [{ __av: { $in: [av('b', 'boolean', 'false')] } }, { 'b.boolean': { $eq: false } }]],
    ['b.boolean.exists=false', [{ 'b.boolean': { $exists: false } }]],
    // date: stored as its text, compared as text (YYYY-MM-DD orders like the dates)
    ['d.date=2024-02-29', [{ __av: { $in: [av('d', 'date', '"2024-02-29"')] } }, { 'd.date': { $eq: '2024-02-29' } }]],
    ['d.date.ne=2024-02-29', [gtOrLt('d.date', '2024-02-29')]],
    ['d.date.gt=2024-01-01', [{ 'd.date': { $gt: '2024-01-01' } }]],
    ['d.date.gte=2024-01-01', [{ 'd.date': { $gte: '2024-01-01' } }]],
    ['d.date.lt=2024-01-01', [{ 'd.date': { $lt: '2024-01-01' } }]],
    ['d.date.lte=2024-01-01', [{ 'd.date': { $lte: '2024-01-01' } }]],
    ['d.date.in=2024-01-01,2024-01-02', [{ __av: { $in: [av('d', 'date', '"2024-01-01"'), av('d', 'date', '"2024-01-02"')] } }, { 'd.date': { $in: ['2024-01-01', '2024-01-02'] } }]],
    ['d.date.exists=true', [{ 'd.date': { $exists: true } }]],
    // datetime: stored as a BSON date, normalised to UTC first; never in `__av`
    ['t.datetime=2024-05-01T12:00:00%2B02:00', [{ 't.datetime': { $eq: new Date('2024-05-01T10:00:00.000Z') } }]],
    ['t.datetime.ne=2024-05-01T10:00:00Z', [gtOrLt('t.datetime', new Date('2024-05-01T10:00:00.000Z'))]],
    ['t.datetime.gt=2024-05-01T10:00:00Z', [{ 't.datetime': { $gt: new Date('2024-05-01T10:00:00.000Z') } }]],
    ['t.datetime.gte=2024-05-01T10:00:00Z', [{ 't.datetime': { $gte: new Date('2024-05-01T10:00:00.000Z') } }]],
    ['t.datetime.lt=2024-05-01T10:00:00Z', [{ 't.datetime': { $lt: new Date('2024-05-01T10:00:00.000Z') } }]],
    ['t.datetime.lte=2024-05-01T10:00:00Z', [{ 't.datetime': { $lte: new Date('2024-05-01T10:00:00.000Z') } }]],
    ['t.datetime.in=2024-05-01T10:00:00Z,2024-05-02T10:00:00Z', [{ 't.datetime': { $in: [new Date('2024-05-01T10:00:00Z'), new Date('2024-05-02T10:00:00Z')] } }]],
    ['t.datetime.exists=true', [{ 't.datetime': { $exists: true } }]],
    // reference: stored as an ObjectId
    [`r.reference=${ID}`, [{ __av: { $in: [av('r', 'reference', `"${ID}"`)] } }, { 'r.reference': { $eq: new ObjectId(ID) } }]],
    [`r.reference.ne=${ID}`, [gtOrLt('r.reference', new ObjectId(ID))]],
    [`r.reference.in=${ID},${ID2}`, [{ __av: { $in: [av('r', 'reference', `"${ID}"`), av('r', 'reference', `"${ID2}"`)] } }, { 'r.reference': { $in: [new ObjectId(ID), new ObjectId(ID2)] } }]],
    ['r.reference.exists=false', [{ 'r.reference': { $exists: false } }]],
    // file fields: filename and filetype as strings, filesize as a number; only filetype is in `__av`
    ['f.filename=a.pdf', [{ 'f.filename': { $eq: 'a.pdf' } }]],
    ['f.filename.ne=a.pdf', [gtOrLt('f.filename', 'a.pdf')]],
    ['f.filename.in=a,b', [{ 'f.filename': { $in: ['a', 'b'] } }]],
    ['f.filename.regex=/pdf$/', [{ 'f.filename': { $regex: 'pdf$', $options: '' } }]],
    ['f.filename.exists=true', [{ 'f.filename': { $exists: true } }]],
    ['f.filetype=image/png', [{ __av: { $in: [av('f', 'filetype', '"image/png"')] } }, { 'f.filetype': { $eq: 'image/png' } }]],
    ['f.filetype.ne=image/png', [gtOrLt('f.filetype', 'image/png')]],
    ['f.filetype.in=image/png,image/gif', [{ __av: { $in: [av('f', 'filetype', '"image/png"'), av('f', 'filetype', '"image/gif"')] } }, { 'f.filetype': { $in: ['image/png', 'image/gif'] } }]],
    ['f.filetype.regex=/^image/', [{ 'f.filetype': { $regex: '^image', $options: '' } }]],
    ['f.filetype.exists=false', [{ 'f.filetype': { $exists: false } }]],
    ['f.filesize=10', [{ 'f.filesize': { $eq: 10 } }]],
    ['f.filesize.ne=10', [gtOrLt('f.filesize', 10)]],
    ['f.filesize.gt=10', [{ 'f.filesize': { $gt: 10 } }]],
    ['f.filesize.gte=10', [{ 'f.filesize': { $gte: 10 } }]],
    ['f.filesize.lt=10', [{ 'f.filesize': { $lt: 10 } }]],
    ['f.filesize.lte=10', [{ 'f.filesize': { $lte: 10 } }]],
    ['f.filesize.in=1,2', [{ 'f.filesize': { $in: [1, 2] } }]],
    ['f.filesize.exists=true', [{ 'f.filesize': { $exists: true } }]],
    // system properties filter like any other
    [`_type.reference=${ID}`, [{ __av: { $in: [av('_type', 'reference', `"${ID}"`)] } }, { '_type.reference': { $eq: new ObjectId(ID) } }]],
    ['_created.datetime.gt=2024-01-01T00:00:00Z', [{ '_created.datetime': { $gt: new Date('2024-01-01T00:00:00Z') } }]],
    ['_api_key.string.exists=true', [{ '_api_key.string': { $exists: true } }]],
    // a value that looks like an operator is only ever an operand
    ['name.string=$where', [{ __av: { $in: [av('name', 'string', '"$where"')] } }, { 'name.string': { $eq: '$where' } }]],
  ])('%s', (query, expected) => {
    expect(conditions(query)).toEqual(expected);
  });
});

describe('compileFilter: combinations, search terms and visibility', () => {
  it.each<[string, unknown[]]>([
    ['', []],
    ['limit=5&skip=10&sort=name.string&props=name', []],
    ['q=ann', [{ __q: { $all: ['ann'] } }]],
    ['q=Crème%20Brûlée', [{ __q: { $all: ['creme', 'brulee'] } }]],
    ['q=ann%20ANN', [{ __q: { $all: ['ann'] } }]],
    ['q=%20,;', []],
    [
      'n.number.gt=1&n.number.lt=5&q=x',
      [{ 'n.number': { $gt: 1 } }, { 'n.number': { $lt: 5 } }, { __q: { $all: ['x'] } }],
    ],
    [
      'a.string=x&b.boolean.exists=true',
      [{ __av: { $in: [av('a', 'string', '"x"')] } }, { 'a.string': { $eq: 'x' } }, { 'b.boolean': { $exists: true } }],
    ],
  ])('%j', (query, expected) => {
    expect(conditions(query)).toEqual(expected);
  });

  it('always leads with the read tags, also with none', () => {
    expect(compileFilter(parseListQuery({}), [])).toEqual({ $and: [{ __read: { $in: [] } }] });
    expect(compileFilter(parseListQuery({ q: 'x' }), ['public'])).toEqual({ $and: [{ __read: { $in: ['public'] } }, { __q: { $all: ['x'] } }] });
  });
});

describe('compileFilter: a reference\'s label, and whether a property has any value (SPEC §7a)', () => {
  it.each<[string, unknown[]]>([
    // the label is the value's `string` field, indexed in `__av` like any string
    ['_type.string=menu', [{ __av: { $in: [av('_type', 'string', '"menu"')] } }, { '_type.string': { $eq: 'menu' } }]],
    [
      '_parent.string.in=book,folder',
      [{ __av: { $in: [av('_parent', 'string', '"book"'), av('_parent', 'string', '"folder"')] } }, { '_parent.string': { $in: ['book', 'folder'] } }],
    ],
    ['author.string.ne=Jane', [gtOrLt('author.string', 'Jane')]],
    ['author.string.regex=/^ja/i', [{ 'author.string': { $regex: '^ja', $options: 'i' } }]],
    ['author.string.exists=false', [{ 'author.string': { $exists: false } }]],
    // every value has an `_id`: some value of the property at all, or none
    ['add_from._id.exists=true', [{ 'add_from._id': { $exists: true } }]],
    ['table._id.exists=false', [{ 'table._id': { $exists: false } }]],
  ])('%s', (query, expected) => {
    expect(conditions(query)).toEqual(expected);
  });
});

describe('compileFilter: a right list reads its level and those above it (cumulative, SPEC §4)', () => {
  const oid = new ObjectId(ID);
  const levels = (right: string) => ['_owner', '_editor', '_expander', '_viewer'].slice(0, ['_owner', '_editor', '_expander', '_viewer'].indexOf(right) + 1);

  it.each(['_owner', '_editor', '_expander', '_viewer'])('%s.reference=X: one $in of every level\'s `__av` entry, beside the $or of their exact conditions', (right) => {
    const names = levels(right);
    const exact = names.map((name) => ({ [`${name}.reference`]: { $eq: oid } }));
    expect(conditions(`${right}.reference=${ID}`)).toEqual([
      { __av: { $in: names.map((name) => av(name, 'reference', `"${ID}"`)) } },
      names.length === 1 ? exact[0] : { $or: exact },
    ]);
  });

  it.each<[string, unknown[]]>([
    [
      `_editor.reference.in=${ID},${ID2}`,
      [
        { __av: { $in: [av('_owner', 'reference', `"${ID}"`), av('_owner', 'reference', `"${ID2}"`), av('_editor', 'reference', `"${ID}"`), av('_editor', 'reference', `"${ID2}"`)] } },
        { $or: [{ '_owner.reference': { $in: [new ObjectId(ID), new ObjectId(ID2)] } }, { '_editor.reference': { $in: [new ObjectId(ID), new ObjectId(ID2)] } }] },
      ],
    ],
    ['_editor.string=Ann', [{ __av: { $in: [av('_owner', 'string', '"Ann"'), av('_editor', 'string', '"Ann"')] } }, { $or: [{ '_owner.string': { $eq: 'Ann' } }, { '_editor.string': { $eq: 'Ann' } }] }]],
    [`_editor.reference.ne=${ID}`, [{ $or: [gtOrLt('_owner.reference', new ObjectId(ID)), gtOrLt('_editor.reference', new ObjectId(ID))] }]],
    ['_expander.reference.exists=true', [{ $or: [{ '_owner.reference': { $exists: true } }, { '_editor.reference': { $exists: true } }, { '_expander.reference': { $exists: true } }] }]],
    // nobody on any level: each level without a value (an AND)
    ['_expander.reference.exists=false', [{ '_owner.reference': { $exists: false } }, { '_editor.reference': { $exists: false } }, { '_expander.reference': { $exists: false } }]],
    ['_editor._id.exists=false', [{ '_owner._id': { $exists: false } }, { '_editor._id': { $exists: false } }]],
  ])('%s', (query, expected) => {
    expect(conditions(query)).toEqual(expected);
  });
});

describe('compileMatch: one entity against a reference_query, whatever its visibility', () => {
  it.each<[string, unknown[]]>([
    ['', []],
    ['kind.string=a', [{ __av: { $in: [av('kind', 'string', '"a"')] } }, { 'kind.string': { $eq: 'a' } }]],
    [`_type.reference=${ID2}&n.number.gt=1`, [{ __av: { $in: [av('_type', 'reference', `"${ID2}"`)] } }, { '_type.reference': { $eq: new ObjectId(ID2) } }, { 'n.number': { $gt: 1 } }]],
  ])('%j', (query, expected) => {
    expect(compileMatch(ID, parseListQuery(rawQueryOf(query)))).toEqual({ $and: [{ _id: new ObjectId(ID) }, ...expected] });
  });
});

describe('compileSort: the scalar `__sort` keys, ties broken by `_id`', () => {
  it.each<[string | undefined, Record<string, 1 | -1>]>([
    [undefined, { _id: 1 }],
    ['name.string', { '__sort.name.string.min': 1, _id: 1 }],
    ['-name.string', { '__sort.name.string.max': -1, _id: -1 }],
    ['n.number,-d.date', { '__sort.n.number.min': 1, '__sort.d.date.max': -1, _id: 1 }],
    ['-t.datetime,n.number', { '__sort.t.datetime.max': -1, '__sort.n.number.min': 1, _id: -1 }],
    ['f.filename,f.filesize,-f.filetype', { '__sort.f.filename.min': 1, '__sort.f.filesize.min': 1, '__sort.f.filetype.max': -1, _id: 1 }],
    ['-_created.datetime', { '__sort._created.datetime.max': -1, _id: -1 }],
    // a reference by its label or its id, a boolean (false before true)
    ['author.string', { '__sort.author.string.min': 1, _id: 1 }],
    ['-author.reference', { '__sort.author.reference.max': -1, _id: -1 }],
    ['done.boolean,-_type.string', { '__sort.done.boolean.min': 1, '__sort._type.string.max': -1, _id: 1 }],
  ])('sort=%s', (sort, expected) => {
    const compiled = compileSort(parseListQuery(sort === undefined ? {} : { sort }).sort);
    expect(compiled).toEqual(expected);
    // The order of the keys is the order of sorting.
    expect(Object.keys(compiled)).toEqual(Object.keys(expected));
  });
});

describe('compileProjection: props keep `_id` and the named properties, else internals are hidden', () => {
  it('names the properties of props, and _id', () => {
    expect(compileProjection(parseListQuery({ props: 'name,_created' }).props)).toEqual({ _id: 1, name: 1, _created: 1 });
  });

  it('without props, leaves out every internal field', () => {
    expect(compileProjection(undefined)).toEqual({
      __v: 0, __read: 0, __vids: 0, __refs: 0, __q: 0, __sort: 0, __av: 0, __w: 0, __outbox: 0, __unsettled: 0, __deleted: 0,
    });
  });

  it('with a sort, reads the sort keys a cursor is made of: named beside props, or `__sort` kept', () => {
    const sort = parseListQuery({ sort: '-n.number,t.string' }).sort;
    expect(compileProjection(['name'], sort)).toEqual({ _id: 1, name: 1, '__sort.n.number.max': 1, '__sort.t.string.min': 1 });
    expect(compileProjection(undefined, sort)).toEqual({ __v: 0, __read: 0, __vids: 0, __refs: 0, __q: 0, __av: 0, __w: 0, __outbox: 0, __unsettled: 0, __deleted: 0 });
    expect(compileProjection(['name'], [])).toEqual({ _id: 1, name: 1 });
  });
});

describe('compileAfter: the keyset condition of a cursor, in the order compileSort gives', () => {
  const oid = new ObjectId(ID);
  const after = (sort: string | undefined, values: CursorValue[]) => compileAfter(parseListQuery(sort === undefined ? {} : { sort }).sort, { values, id: ID });
  const N = '__sort.n.number.min';
  const NMAX = '__sort.n.number.max';
  const T = '__sort.t.string.min';

  it.each<[string, string | undefined, CursorValue[], unknown[]]>([
    ['default order: by _id', undefined, [], [{ _id: { $gt: oid } }]],
    // The bound on the first key is implied by the $or: one index range for an index that gives the sort.
    ['ascending', 'n.number', [5], [{ [N]: { $gte: 5 } }, { $or: [{ [N]: { $gt: 5 } }, { $and: [{ [N]: { $eq: 5 } }, { _id: { $gt: oid } }] }] }]],
    // Missing values come first ascending: after one, every entity with a value, then the missing ones by _id.
    ['ascending, after no value', 'n.number', [null], [{ $or: [{ [N]: { $ne: null } }, { $and: [{ [N]: null }, { _id: { $gt: oid } }] }] }]],
    // Descending, missing values come last: after a value, the smaller ones and every missing one.
    [
      'descending',
      '-n.number',
      [5],
      [
        { [NMAX]: { $not: { $gt: 5 } } },
        { $or: [{ $or: [{ [NMAX]: { $lt: 5 } }, { [NMAX]: null }] }, { $and: [{ [NMAX]: { $eq: 5 } }, { _id: { $lt: oid } }] }] },
      ],
    ],
    // Descending, after no value: only missing ones with a smaller _id follow.
    ['descending, after no value', '-n.number', [null], [{ $and: [{ [NMAX]: null }, { _id: { $lt: oid } }] }]],
    [
      'two keys, mixed directions: _id in the first key\'s',
      'n.number,-t.string',
      [5, 'dune'],
      [
        { [N]: { $gte: 5 } },
        {
          $or: [
            { [N]: { $gt: 5 } },
            { $and: [{ [N]: { $eq: 5 } }, { $or: [{ '__sort.t.string.max': { $lt: 'dune' } }, { '__sort.t.string.max': null }] }] },
            { $and: [{ [N]: { $eq: 5 } }, { '__sort.t.string.max': { $eq: 'dune' } }, { _id: { $gt: oid } }] },
          ],
        },
      ],
    ],
    [
      'two keys, the first without a value',
      'n.number,t.string',
      [null, 'dune'],
      [
        {
          $or: [
            { [N]: { $ne: null } },
            { $and: [{ [N]: null }, { [T]: { $gt: 'dune' } }] },
            { $and: [{ [N]: null }, { [T]: { $eq: 'dune' } }, { _id: { $gt: oid } }] },
          ],
        },
      ],
    ],
    [
      'two keys descending, the first without a value',
      '-n.number,-t.string',
      [null, 'dune'],
      [
        { [NMAX]: null },
        {
          $or: [
            { $and: [{ [NMAX]: null }, { $or: [{ '__sort.t.string.max': { $lt: 'dune' } }, { '__sort.t.string.max': null }] }] },
            { $and: [{ [NMAX]: null }, { '__sort.t.string.max': { $eq: 'dune' } }, { _id: { $lt: oid } }] },
          ],
        },
      ],
    ],
    // Operator-looking strings are operands, never operators.
    ['a string that looks like an operator', 't.string', ['$where'], [{ [T]: { $gte: '$where' } }, { $or: [{ [T]: { $gt: '$where' } }, { $and: [{ [T]: { $eq: '$where' } }, { _id: { $gt: oid } }] }] }]],
    [
      'a date (its ISO text)',
      '-d.date',
      ['2024-02-29'],
      [
        { '__sort.d.date.max': { $not: { $gt: '2024-02-29' } } },
        { $or: [{ $or: [{ '__sort.d.date.max': { $lt: '2024-02-29' } }, { '__sort.d.date.max': null }] }, { $and: [{ '__sort.d.date.max': { $eq: '2024-02-29' } }, { _id: { $lt: oid } }] }] },
      ],
    ],
  ])('%s', (_, sort, values, expected) => {
    expect(after(sort, values)).toEqual(expected);
  });
});

describe('compilePage: the query\'s filter, then its cursor; the count reads compileFilter alone', () => {
  it('without a cursor, the filter as it is', () => {
    const query = parseListQuery(rawQueryOf('n.number.gt=1&sort=n.number'));
    expect(compilePage(query, READ)).toEqual(compileFilter(query, READ));
  });

  it('with one, its conditions after the visibility and the filters', () => {
    const query = parseListQuery(rawQueryOf('n.number.gt=1'));
    query.after = { values: [], id: ID };
    expect(compilePage(query, READ)).toEqual({ $and: [{ __read: { $in: READ } }, { 'n.number': { $gt: 1 } }, { _id: { $gt: new ObjectId(ID) } }] });
  });
});
