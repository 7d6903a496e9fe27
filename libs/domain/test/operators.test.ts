import {
  DomainError,
  OPERATORS,
  OPERATOR_TABLE,
  filterKeyOf,
  listQueryOf,
  parseListQuery,
  type ListParts,
  type ListQuery,
  type OperandKind,
  type Operator,
  type RawQuery,
} from '@entia/domain';

/**
 * The operator table (query/operators.ts) and the two ways into a list query: a query string
 * (`parseListQuery`) and typed parts (`listQueryOf`, GraphQL's), which must read, bound and refuse
 * every filter alike.
 */

const ID = '5f1d7a0c9b1e8a0012345678';

/** The query, or the refusals (parameter and message) of `run`. */
function outcome(run: () => ListQuery): ListQuery | { refused: { parameter?: string; message: string }[] } {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.kind).toBe('invalid');
    return { refused: error.errors.map(({ parameter, message }) => ({ parameter, message })) };
  }
}

describe('OPERATOR_TABLE: one entry per operator', () => {
  it('has exactly the operators of OPERATORS, in that order', () => {
    expect(Object.keys(OPERATOR_TABLE)).toEqual([...OPERATORS]);
  });

  /** What a filter of each operand kind carries besides property, field and op. */
  const OPERAND_FIELDS: Record<OperandKind, string[]> = { scalar: ['value'], list: ['values'], boolean: ['value'], pattern: ['flags', 'pattern'] };
  const TEXT: Record<OperandKind, string> = { scalar: '5', list: '5,6', boolean: 'true', pattern: '/5/' };

  it.each(OPERATORS.filter((op) => op !== 'regex'))('%s: the parsed filter carries its operand kind\'s fields', (op) => {
    const { operand } = OPERATOR_TABLE[op];
    const [filter] = parseListQuery({ [filterKeyOf('n', 'number', op)]: TEXT[operand] }).filters;
    expect(Object.keys(filter!).filter((key) => !['property', 'field', 'op'].includes(key)).sort()).toEqual(OPERAND_FIELDS[operand]);
  });

  it('regex: the parsed filter carries a pattern and flags', () => {
    expect(parseListQuery({ 's.string.regex': '/5/i' }).filters).toEqual([{ property: 's', field: 'string', op: 'regex', pattern: '5', flags: 'i' }]);
  });

  it.each<[Operator, string]>([
    ['eq', 'p.string'],
    ['ne', 'p.string.ne'],
    ['in', 'p.string.in'],
    ['exists', 'p.string.exists'],
  ])('filterKeyOf(p, string, %s) = %s', (op, key) => {
    expect(filterKeyOf('p', 'string', op)).toBe(key);
  });

  it('every operator is described', () => {
    for (const op of OPERATORS) expect(OPERATOR_TABLE[op].description.length).toBeGreaterThan(10);
  });
});

describe('listQueryOf reads typed parts as parseListQuery reads the query string', () => {
  const target = (property: string, field: string, op: Operator) => ({ property, field, op }) as ListParts['filters'][number]['target'];
  const cases: [string, ListParts, RawQuery][] = [
    ['no parts', { filters: [] }, {}],
    ['a number range', { filters: [{ target: target('n', 'number', 'gte'), operand: '5' }, { target: target('n', 'number', 'lt'), operand: '9.5' }] }, { 'n.number.gte': '5', 'n.number.lt': '9.5' }],
    ['an in list', { filters: [{ target: target('r', 'reference', 'in'), operand: [ID, ID] }] }, { 'r.reference.in': `${ID},${ID}` }],
    ['exists false', { filters: [{ target: target('b', 'boolean', 'exists'), operand: 'false' }] }, { 'b.boolean.exists': 'false' }],
    ['presence', { filters: [{ target: target('b', '_id', 'exists'), operand: 'true' }] }, { 'b._id.exists': 'true' }],
    ['a regex', { filters: [{ target: target('s', 'string', 'regex'), operand: '/^a/i' }] }, { 's.string.regex': '/^a/i' }],
    ['a datetime, normalised', { filters: [{ target: target('t', 'datetime', 'gt'), operand: '2024-01-02T05:04:05+02:00' }] }, { 't.datetime.gt': '2024-01-02T05:04:05+02:00' }],
    ['q, sort, limit and skip', { filters: [], q: 'Émile zola', sort: ['-n.number', 's.string'], limit: 0, skip: 20 }, { q: 'Émile zola', sort: '-n.number,s.string', limit: '0', skip: '20' }],
    // Refusals: the same parameters and messages.
    ['a number that is none', { filters: [{ target: target('n', 'number', 'eq'), operand: 'ten' }] }, { 'n.number': 'ten' }],
    ['a bad regex', { filters: [{ target: target('s', 'string', 'regex'), operand: 'no slashes' }] }, { 's.string.regex': 'no slashes' }],
    ['a lookahead', { filters: [{ target: target('s', 'string', 'regex'), operand: '/a(?=b)/' }] }, { 's.string.regex': '/a(?=b)/' }],
    ['an operator the field lacks', { filters: [{ target: target('b', 'boolean', 'gt'), operand: 'true' }] }, { 'b.boolean.gt': 'true' }],
    ['a secret compared', { filters: [{ target: target('_api_key', 'string', 'eq'), operand: 'x' }] }, { '_api_key.string': 'x' }],
    ['_id with another operator', { filters: [{ target: target('p', '_id', 'ne'), operand: ID }] }, { 'p._id.ne': ID }],
    ['exists neither true nor false', { filters: [{ target: target('s', 'string', 'exists'), operand: 'yes' }] }, { 's.string.exists': 'yes' }],
    ['an in list too long', { filters: [{ target: target('n', 'number', 'in'), operand: Array.from({ length: 1001 }, String) }] }, { 'n.number.in': Array.from({ length: 1001 }, String).join(',') }],
    ['an in item that is none', { filters: [{ target: target('n', 'number', 'in'), operand: ['1', 'x'] }] }, { 'n.number.in': '1,x' }],
    ['limit over the bound, skip below', { filters: [], limit: 1001, skip: -1 }, { limit: '1001', skip: '-1' }],
    ['too many terms', { filters: [], q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }, { q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }],
    ['a sort by a secret, an unsortable field', { filters: [], sort: ['_api_key.string', 'p.filesize'] }, { sort: '_api_key.string,p.filesize' }],
    ['nine sort keys', { filters: [], sort: Array.from({ length: 9 }, (_, i) => `p${i}.number`) }, { sort: Array.from({ length: 9 }, (_, i) => `p${i}.number`).join(',') }],
    [
      'fifty-one filters',
      { filters: Array.from({ length: 51 }, (_, i) => ({ target: target(`p${i}`, 'number', 'eq'), operand: '1' })) },
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}.number`, '1'])),
    ],
  ];

  it.each(cases)('%s', (_name, parts, raw) => {
    const typed = outcome(() => listQueryOf(parts));
    expect(typed).toEqual(outcome(() => parseListQuery(raw)));
  });

  it('the table has refusals and acceptances', () => {
    const refused = cases.filter(([, parts]) => 'refused' in outcome(() => listQueryOf(parts)));
    expect(refused.length).toBeGreaterThan(5);
    expect(cases.length - refused.length).toBeGreaterThan(5);
  });

  it('an in list item with a comma splits as in a query string; an empty list reads as `in=`', () => {
    expect(listQueryOf({ filters: [{ target: target('s', 'string', 'in'), operand: ['a,b', 'c'] }] }).filters).toEqual([{ property: 's', field: 'string', op: 'in', values: ['a', 'b', 'c'] }]);
    for (const field of ['string', 'number'] as const) {
      expect(outcome(() => listQueryOf({ filters: [{ target: target('p', field, 'in'), operand: [] }] }))).toEqual(outcome(() => parseListQuery({ [`p.${field}.in`]: '' })));
    }
  });
});
