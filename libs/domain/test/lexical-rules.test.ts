import {
  ANY_PROPERTY_NAME_PATTERN,
  DATABASE_NAME_PATTERN,
  DATABASE_SPELLING_PATTERN,
  OBJECT_ID_PATTERN,
  PROPERTY_NAME_PATTERN,
  isAnyPropertyName,
  isDatabaseName,
  isDatabaseSpelling,
  isObjectId,
  isPropertyName,
  propertyListPattern,
} from '@entia/domain';

// Every lexical rule of SPEC §2 as a table: each row says whether the predicate accepts the input,
// and the pattern published for schemas must give the same answer (the control database aside,
// which is configuration and so only the predicate knows).

type Row = [input: string, accepted: boolean];

interface Rule {
  name: string;
  predicate: (input: string) => boolean;
  pattern: string;
  rows: Row[];
}

const CONTROL_DB = 'entia';

const rules: Rule[] = [
  {
    name: 'object id',
    predicate: isObjectId,
    pattern: OBJECT_ID_PATTERN,
    rows: [
      ['5f1d7a0c9b1e8a0012345678', true],
      ['000000000000000000000000', true],
      ['ffffffffffffffffffffffff', true],
      ['5F1D7A0C9B1E8A0012345678', false], // uppercase hex: ids are written in lowercase only
      ['5f1d7a0c9b1e8a001234567A', false],
      ['5f1d7a0c9b1e8a001234567', false], // 23
      ['5f1d7a0c9b1e8a00123456789', false], // 25
      ['5f1d7a0c9b1e8a0012345678\n', false],
      [' 5f1d7a0c9b1e8a0012345678', false],
      ['zzzzzzzzzzzzzzzzzzzzzzzz', false],
      ['', false],
    ],
  },
  {
    name: 'user property name',
    predicate: isPropertyName,
    pattern: PROPERTY_NAME_PATTERN,
    rows: [
      ['a', true],
      ['title', true],
      ['First_name2', true],
      ['constructor', true], // spelled like a prototype member, yet a valid name: stores use null-prototype maps
      ['hasOwnProperty', true],
      ['x'.repeat(64), true],
      ['x'.repeat(65), false],
      ['_type', false], // system
      ['__proto__', false],
      ['1a', false],
      ['a-b', false],
      ['a.b', false],
      ['$gt', false],
      ['título', false],
      ['', false],
    ],
  },
  {
    name: 'user or system property name',
    predicate: isAnyPropertyName,
    pattern: ANY_PROPERTY_NAME_PATTERN,
    rows: [
      ['title', true],
      ['_type', true],
      ['_created', true],
      ['constructor', true],
      ['_'.concat('x'.repeat(64)), true],
      ['_'.concat('x'.repeat(65)), false],
      ['x'.repeat(65), false],
      ['__proto__', false],
      ['_', false],
      ['__type', false],
      ['_1', false],
      ['a.b', false],
      ['', false],
    ],
  },
  {
    name: 'database name',
    predicate: (name) => isDatabaseName(name, CONTROL_DB),
    pattern: DATABASE_NAME_PATTERN,
    rows: [
      ['abc', true],
      ['my_db', true],
      ['a12', true],
      ['constructor', true],
      ['authors', true], // only the reserved names themselves are refused, not names beginning with them
      ['jobsx', true],
      ['x'.repeat(63), true],
      ['x'.repeat(64), false],
      ['ab', false],
      ['Abc', false],
      ['1abc', false],
      ['_abc', false],
      ['__proto__', false],
      ['a-bc', false],
      ['a.bc', false],
      ['ab c', false],
      ['$abc', false],
      ['admin', false],
      ['local', false],
      ['config', false],
      ['auth', false],
      ['jobs', false],
    ],
  },
  {
    name: 'database spelling (reserved names included)',
    predicate: isDatabaseSpelling,
    pattern: DATABASE_SPELLING_PATTERN,
    rows: [
      ['abc', true],
      ['admin', true],
      ['jobs', true],
      [CONTROL_DB, true],
      ['x'.repeat(63), true],
      ['x'.repeat(64), false],
      ['ab', false],
      ['Abc', false],
      ['__proto__', false],
    ],
  },
];

describe.each(rules)('the $name rule', ({ predicate, pattern, rows }) => {
  it.each(rows)('%j: accepted %s', (input, accepted) => {
    expect(predicate(input)).toBe(accepted);
  });
  it.each(rows)('%j: the published pattern agrees', (input, accepted) => {
    expect(new RegExp(pattern, 'u').test(input)).toBe(accepted);
  });
});

describe('the control database', () => {
  it('is spelled like a database name, yet is no tenant database', () => {
    expect([isDatabaseSpelling(CONTROL_DB), isDatabaseName(CONTROL_DB, CONTROL_DB), isDatabaseName(CONTROL_DB, 'other')]).toEqual([true, false, true]);
  });
});

describe('propertyListPattern', () => {
  const threeAtMost = new RegExp(propertyListPattern(3), 'u');
  it.each<Row>([
    ['title', true],
    ['title,_created', true],
    ['a,b,c', true],
    ['a,b,c,d', false], // more than the maximum
    ['', false],
    ['a,', false],
    [',a', false],
    ['a,,b', false],
    ['a,__proto__', false],
    ['a, b', false],
    // Paths to one field of the values (which fields: parseProps).
    ['ordinal.number,name,_type.string', true],
    ['a.', false],
    ['a.b.c', false],
    ['a.Number', false],
    ['a.__proto__', false],
  ])('%j: accepted %s', (input, accepted) => {
    expect(threeAtMost.test(input)).toBe(accepted);
  });
});
