import {
  FORMULA_FUNCTIONS,
  MAX_FORMULA_STRING,
  evaluateFormula,
  formulaValueData,
  formulaValueType,
  formulaValuesOf,
  newProperties,
  parseFormula,
  type FormulaContext,
  type FormulaPath,
  type FormulaValue,
  type Properties,
  type Value,
} from '@entia/domain';
import { ENTITY, hexId, val } from './fixtures';

/**
 * Evaluating formulas (SPEC §9): every function with numbers, strings, empty and mixed input;
 * division by zero and type errors give no value ([]), never a throw; nested expressions.
 */

const CUSTOMER = hexId(0xc1);
const FRIEND = hexId(0xc2);

/** Stored values of a scalar list, as a property holds them. */
const values = (name: string, list: FormulaValue[]): Value[] =>
  list.map((value) => val(name, typeof value === 'number' ? { number: value } : typeof value === 'boolean' ? { boolean: value } : { string: value }));

// The entity the formulas are evaluated on. `empty` and `missing` have no values.
const PROPERTIES: Properties = newProperties([
  ['price', values('price', [10])],
  ['tax', values('tax', [2])],
  ['quantity', values('quantity', [3])],
  ['zero', values('zero', [0])],
  ['neg', values('neg', [-4.5])],
  ['nums', values('nums', [1, 2, 3, 4])],
  ['name', values('name', ['Ada'])],
  ['surname', values('surname', ['Lovelace'])],
  ['tags', values('tags', ['a', 'b'])],
  ['done', values('done', [true])],
  ['off', values('off', [false])],
  ['empty', []],
  ['born', [val('born', { date: '1815-12-10' })]],
  ['seen', [val('seen', { datetime: '2024-05-01T10:00:00.000Z' })]],
  ['customer', [val('customer', { reference: CUSTOMER, string: 'ACME Ltd' })]],
  ['friend', [val('friend', { reference: FRIEND })]],
  ['photo', [val('photo', { filename: 'me.png', filesize: 10, filetype: 'image/png' })]],
  ['title', [val('title', { string: 'Hello', language: 'en' }), val('title', { string: 'Tere', language: 'et' })]],
  ['_created', [val('_created', { datetime: '2024-01-01T00:00:00.000Z', reference: hexId(0xa1) })]],
]);

// What the caller's resolver answers for each path; other paths have no values.
const PATHS: Record<string, FormulaValue[]> = {
  '_child.row.amount': [10, 20.5, 30],
  '_child.*._id': [hexId(0xd1), hexId(0xd2), hexId(0xd3)],
  '_child.*.name': ['b', 'a', 'c'],
  '_referrer.invoice.total': [],
  'customer.*.name': ['ACME Ltd'],
};

const context = (more: Partial<FormulaContext> = {}): FormulaContext => ({
  id: ENTITY,
  properties: PROPERTIES,
  resolve: (path) => PATHS[path.text] ?? [],
  ...more,
});

const run = (text: string, more: Partial<FormulaContext> = {}) => evaluateFormula(parseFormula(text), context(more));

/** Every formula of the tables below, to check that each function is exercised. */
const exercised = new Set<string>();
type Case = [string, FormulaValue[]];
function cases(table: Case[]): Case[] {
  for (const [text] of table) text.split(/\s+/).forEach((word) => exercised.add(word));
  return table;
}

describe.each<[string, Case[]]>([
  [
    'CONCAT',
    cases([
      ["name ' ' surname CONCAT", ['Ada Lovelace']],
      ["'n=' 5 true CONCAT", ['n=5true']],
      ['1.5 -2 CONCAT', ['1.5-2']],
      ['tags CONCAT', ['ab']],
      ['empty name CONCAT', ['Ada']],
      ['empty CONCAT', []],
      ["'' CONCAT", ['']],
      ['born seen CONCAT', ['1815-12-102024-05-01T10:00:00.000Z']],
    ]),
  ],
  [
    'CONCAT_WS',
    cases([
      ["name surname ' ' CONCAT_WS", ['Ada Lovelace']],
      ["tags ', ' CONCAT_WS", ['a, b']],
      ["nums '-' CONCAT_WS", ['1-2-3-4']],
      ["_child.*.name name ', ' CONCAT_WS", ['b, a, c, Ada']],
      ['tags 0 CONCAT_WS', ['a0b']],
      ["empty name ' ' CONCAT_WS", ['Ada']],
      ["empty ', ' CONCAT_WS", []],
      ['name surname empty CONCAT_WS', []], // no separator: a type error
      ['name surname tags CONCAT_WS', []], // two separators: a type error
    ]),
  ],
  [
    'SUM',
    cases([
      ['price tax SUM', [12]],
      ['nums SUM', [10]],
      ['_child.row.amount SUM', [60.5]],
      ['neg price SUM', [5.5]],
      ['0.1 0.2 SUM', [0.3]],
      ['empty SUM', [0]],
      ['empty price SUM', [10]],
      ['price name SUM', []],
      ['price done SUM', []],
      ["'1' '2' SUM", []],
      ['1e308 1e308 SUM', []],
    ]),
  ],
  [
    'SUBTRACT',
    cases([
      ['price tax SUBTRACT', [8]],
      ['nums SUBTRACT', [-8]],
      ['price SUBTRACT', [10]],
      ['0.3 0.1 SUBTRACT', [0.2]],
      ['empty SUBTRACT', []],
      ['empty price SUBTRACT', [10]],
      ['price name SUBTRACT', []],
      ['-1e308 1e308 SUBTRACT', []],
    ]),
  ],
  [
    'MULTIPLY',
    cases([
      ['price quantity MULTIPLY', [30]],
      ['nums MULTIPLY', [24]],
      ['neg 2 MULTIPLY', [-9]],
      ['1.1 3 MULTIPLY', [3.3]],
      ['zero neg MULTIPLY', [0]],
      ['empty MULTIPLY', []],
      ['empty missing MULTIPLY', []],
      ['empty price MULTIPLY', [10]],
      ["price 'x' MULTIPLY", []],
      ['1e200 1e200 MULTIPLY', []],
    ]),
  ],
  [
    'DIVIDE',
    cases([
      ['price 4 DIVIDE', [2.5]],
      ['1 3 DIVIDE', [0.333333333333333]],
      ['120 nums DIVIDE', [5]],
      ['price DIVIDE', [10]],
      ['0 price DIVIDE', [0]],
      ['price zero DIVIDE', []],
      ['price 0 DIVIDE', []],
      ['price 2 0 DIVIDE', []],
      ['0 0 DIVIDE', []],
      ['empty DIVIDE', []],
      ['empty 2 DIVIDE', [2]],
      ['price name DIVIDE', []],
      ['1e308 1e-308 DIVIDE', []],
    ]),
  ],
  [
    'AVERAGE',
    cases([
      ['nums AVERAGE', [2.5]],
      ['_child.row.amount AVERAGE', [20.1666666666667]],
      ['price AVERAGE', [10]],
      ['1e308 1e308 AVERAGE', [1e308]],
      ['empty AVERAGE', []],
      ['tags AVERAGE', []],
      ['price name AVERAGE', []],
    ]),
  ],
  [
    'COUNT',
    cases([
      ['nums COUNT', [4]],
      ['tags nums COUNT', [6]],
      ['name price done COUNT', [3]],
      ['_child.*._id COUNT', [3]],
      ['_referrer.invoice.total COUNT', [0]],
      ['empty COUNT', [0]],
      ['missing COUNT', [0]],
    ]),
  ],
  [
    'MIN',
    cases([
      ['nums MIN', [1]],
      ['neg price MIN', [-4.5]],
      ['_child.*.name MIN', ['a']],
      ["born '2000-01-01' MIN", ['1815-12-10']],
      ['empty MIN', []],
      ['empty price MIN', [10]],
      ['price name MIN', []],
      ['done off MIN', []],
    ]),
  ],
  [
    'MAX',
    cases([
      ['nums MAX', [4]],
      ['_child.row.amount price MAX', [30]],
      ['_child.*.name MAX', ['c']],
      ["seen '2024-05-01T09:00:00.000Z' MAX", ['2024-05-01T10:00:00.000Z']],
      ['empty MAX', []],
      ['price name MAX', []],
    ]),
  ],
  [
    'ABS',
    cases([
      ['neg ABS', [4.5]],
      ['price ABS', [10]],
      ['-0 ABS', [0]],
      ['_child.row.amount ABS', [10, 20.5, 30]],
      ['empty ABS', []],
      ['name ABS', []],
    ]),
  ],
  [
    'ROUND',
    cases([
      ['1.005 2 ROUND', [1.01]],
      ['2.675 2 ROUND', [2.68]],
      ['2.5 0 ROUND', [3]],
      ['-2.5 0 ROUND', [-3]],
      ['-0.4 0 ROUND', [0]],
      ['1234.5 -2 ROUND', [1200]],
      ['price 3 DIVIDE 2 ROUND', [3.33]],
      ['_child.row.amount 0 ROUND', [10, 21, 30]],
      ['1e300 2 ROUND', [1e300]],
      ['empty 2 ROUND', []],
      ['name 2 ROUND', []],
      ['price 1.5 ROUND', []],
      ['price 16 ROUND', []],
      ['price empty ROUND', []],
      ['price nums ROUND', []],
      ["price '2' ROUND", []],
    ]),
  ],
  [
    'IF',
    cases([
      ["done 'yes' 'no' IF", ['yes']],
      ["off 'yes' 'no' IF", ['no']],
      ["empty 'yes' 'no' IF", ['no']],
      ["price 5 GT 'big' 'small' IF", ['big']],
      ['done nums empty IF', [1, 2, 3, 4]],
      ['off nums empty IF', []],
      ["price 'yes' 'no' IF", []], // a number is not a condition
      ["name 'yes' 'no' IF", []],
      ["(done off) 'yes' 'no' IF", []], // joined: a string
      ["_child.*._id 'yes' 'no' IF", []],
    ]),
  ],
  [
    'EQ',
    cases([
      ['price 10 EQ', [true]],
      ['price 11 EQ', [false]],
      ["name 'Ada' EQ", [true]],
      ["name 'ada' EQ", [false]],
      ['done true EQ', [true]],
      ["price '10' EQ", [false]],
      ["done 'true' EQ", [false]],
      ['customer.*.name customer EQ', [true]],
      ['empty 1 EQ', []],
      ['empty empty EQ', []],
      ["tags 'a' EQ", []],
    ]),
  ],
  [
    'NE',
    cases([
      ['price 10 NE', [false]],
      ["name 'Bob' NE", [true]],
      ["price '10' NE", [true]],
      ['empty 1 NE', []],
      ['nums 1 NE', []],
    ]),
  ],
  [
    'GT',
    cases([
      ['price 5 GT', [true]],
      ['price 10 GT', [false]],
      ["name 'Ab' GT", [true]],
      ["seen '2024-01-01T00:00:00.000Z' GT", [true]],
      ["price 'x' GT", []],
      ['done off GT', []],
      ['empty 1 GT', []],
    ]),
  ],
  [
    'GTE',
    cases([
      ['price 10 GTE', [true]],
      ['price 11 GTE', [false]],
      ["name 'Ada' GTE", [true]],
      ["born '1815-12-10' GTE", [true]],
      ["price 'x' GTE", []],
      ['empty price GTE', []],
    ]),
  ],
  [
    'LT',
    cases([
      ['price 11 LT', [true]],
      ['price 10 LT', [false]],
      ["name 'B' LT", [true]],
      ["born '1900-01-01' LT", [true]],
      ['neg zero LT', [true]],
      ["price '11' LT", []],
      ['empty 1 LT', []],
    ]),
  ],
  [
    'LTE',
    cases([
      ['price 10 LTE', [true]],
      ['price 9 LTE', [false]],
      ["'b' 'a' LTE", [false]],
      ['nums 5 LTE', []],
      ['true false LTE', []],
    ]),
  ],
  [
    'EXISTS',
    cases([
      ['price EXISTS', [true]],
      ['zero EXISTS', [true]],
      ['off EXISTS', [true]],
      ["'' EXISTS", [true]],
      ['empty EXISTS', [false]],
      ['missing EXISTS', [false]],
      ['_referrer.invoice.total EXISTS', [false]],
      ['_child.*._id EXISTS', [true]],
      ['(empty SUBTRACT) EXISTS', [false]],
    ]),
  ],
  [
    'IN',
    cases([
      ["name 'Ada' 'Bob' IN", [true]],
      ["name 'Bob' IN", [false]],
      ["tags 'b' IN", [true]],
      ["tags 'x' 'y' IN", [false]],
      ['price nums 10 IN', [true]],
      ["price '10' IN", [false]],
      ["_child.*.name 'c' IN", [true]],
      ["empty 'a' IN", [false]],
      ['name empty IN', [false]],
      ['done true IN', [true]],
    ]),
  ],
  [
    'NIN',
    cases([
      ["name 'Bob' 'Eve' NIN", [true]],
      ["name 'Ada' NIN", [false]],
      ["tags 'b' NIN", [false]],
      ["empty 'a' NIN", [true]],
      ["price '10' NIN", [true]],
    ]),
  ],
])('%s', (_, table) => {
  it.each(table)('%s → %j', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });
});

describe('every function of SPEC §9 is exercised above', () => {
  it.each([...FORMULA_FUNCTIONS])('%s', (name) => {
    expect(exercised.has(name)).toBe(true);
  });
});

describe('nested expressions', () => {
  it.each<Case>([
    ['(price tax SUM) quantity MULTIPLY', [36]],
    ['price tax SUM quantity MULTIPLY', [36]],
    ['((price tax SUM) (nums SUM) MULTIPLY) 100 DIVIDE', [1.2]],
    ['(price tax SUM quantity MULTIPLY) (nums AVERAGE) SUBTRACT', [33.5]],
    ["'Total: ' (price quantity MULTIPLY) CONCAT", ['Total: 30']],
    ["'Total: ' price quantity MULTIPLY CONCAT", []], // MULTIPLY takes the text too: a type error
    ['(_child.row.amount SUM) (_child.row.amount COUNT) DIVIDE 2 ROUND', [20.17]],
    ['price neg ABS SUM', [14.5]],
    ["price 5 GT (name 'Ada' EQ) EQ 'both' 'not both' IF", ['both']],
    ["(price quantity MULTIPLY) 25 GT 'large' ((price 5 LT) 'small' 'medium' IF) IF", ['large']],
    ["(price quantity MULTIPLY) 50 GT 'large' ((price 5 LT) 'small' 'medium' IF) IF", ['medium']],
    ["(status EXISTS) status 'none' IF", ['none']],
    ["((name surname ' ' CONCAT_WS) 'Ada Lovelace' EQ) 1 0 IF price MULTIPLY", [10]],
    ["(tags 'b' IN) (price 10 EQ) EQ", [true]],
    ['((((price)))) 1 SUM', [11]],
    ['price (tax quantity) SUM', []], // (tax quantity) is the text "23"
  ])('%s → %j', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });
});

describe('failures give no value, and IF only evaluates the branch it takes', () => {
  it.each<Case>([
    ['zero 0 EQ 0 (price zero DIVIDE) IF', [0]],
    ['zero 0 NE (price zero DIVIDE) -1 IF', [-1]],
    ['zero 0 NE (price zero DIVIDE) (name SUM) IF', []],
    ['zero 0 EQ (price zero DIVIDE) -1 IF', []],
    ["'x' (price zero DIVIDE) CONCAT", []], // a failure anywhere else makes the whole formula absent
    ['(price zero DIVIDE) EXISTS', []],
    ['(price zero DIVIDE) COUNT', []],
    ['(name SUM) 1 SUM', []],
    ['(empty SUBTRACT) 1 SUM', [1]], // no value is not a failure: it flows on
  ])('%s → %j', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });
});

describe('without a final function', () => {
  it.each<Case>([
    ['price', [10]],
    ['done', [true]],
    ["'x'", ['x']],
    ['tags', ['a', 'b']],
    ['_child.*.name', ['b', 'a', 'c']],
    ['empty', []],
    ['missing', []],
    ['price tax', ['102']],
    ["name ' ' surname", ['Ada Lovelace']],
    ["tags '/' nums", ['ab/1234']],
    ["empty ''", ['']],
    ['empty missing', []],
  ])('%s → %j', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });
});

describe('what a formula sees of stored values', () => {
  it.each<Case>([
    ['_id', [ENTITY]],
    ['born', ['1815-12-10']],
    ['seen', ['2024-05-01T10:00:00.000Z']],
    ['customer', ['ACME Ltd']], // a reference: its label…
    ['friend', [FRIEND]], // …or its id when it has none
    ['photo', ['me.png']],
    ['title', ['Hello', 'Tere']], // every language
    ['_created', ['2024-01-01T00:00:00.000Z']],
    ['constructor', []], // names of Object.prototype find nothing
    ['toString EXISTS', [false]],
  ])('%s → %j', (text, expected) => {
    expect(run(text)).toEqual(expected);
  });

  it('formulaValuesOf skips values that are no finite scalar', () => {
    expect(formulaValuesOf([val('n', { number: NaN }), val('n', { number: Infinity }), val('n', { number: 1 }), val('x')])).toEqual([1]);
  });

  it('own properties work on a plain object too', () => {
    expect(run('price 1 SUM', { properties: { price: values('price', [4]) } })).toEqual([5]);
    expect(run('price EXISTS', { properties: {} })).toEqual([false]);
  });
});

describe('paths are looked up through the caller’s resolver', () => {
  it('the resolver receives each parsed path', () => {
    const asked: FormulaPath[] = [];
    const resolve = (path: FormulaPath) => {
      asked.push(path);
      return PATHS[path.text] ?? [];
    };
    expect(run('_child.row.amount SUM customer.*.name CONCAT', { resolve })).toEqual(['60.5ACME Ltd']);
    expect(asked).toEqual([
      { text: '_child.row.amount', kind: 'child', via: '_child', type: 'row', property: 'amount' },
      { text: 'customer.*.name', kind: 'reference', via: 'customer', type: '*', property: 'name' },
    ]);
  });

  it('ignores anything the resolver returns that is not a finite scalar', () => {
    const resolve = () => [1, NaN, Infinity, null, undefined, { number: 5 }, [2], 'x'] as unknown as FormulaValue[];
    expect(run('_child.*.n COUNT', { resolve })).toEqual([2]);
  });

  it('passes an error of the resolver on (I/O trouble is not "no value")', () => {
    const resolve = () => {
      throw new Error('database down');
    };
    expect(() => run('_child.*.amount SUM', { resolve })).toThrow('database down');
  });
});

describe('limits on evaluation', () => {
  it(`a string over ${MAX_FORMULA_STRING} characters is a failure`, () => {
    const resolve = () => Array.from({ length: 1001 }, () => 'x'.repeat(1000));
    expect(run('_child.*.text CONCAT', { resolve })).toEqual([]);
    expect(run("_child.*.text ' ' CONCAT_WS", { resolve })).toEqual([]);
  });

  it(`a string of exactly ${MAX_FORMULA_STRING} characters is fine`, () => {
    const resolve = () => Array.from({ length: 1000 }, () => 'x'.repeat(1000));
    expect(run('_child.*.text CONCAT', { resolve })[0]).toHaveLength(MAX_FORMULA_STRING);
  });

  it('many values are summed without trouble', () => {
    const resolve = () => Array.from({ length: 100_000 }, () => 1);
    expect(run('_child.*.n SUM', { resolve })).toEqual([100_000]);
    expect(run('_child.*.n MAX', { resolve })).toEqual([1]);
  });

  it('deeply nested groups evaluate', () => {
    expect(run(`${'('.repeat(99)}price${')'.repeat(99)}`)).toEqual([10]);
  });
});

describe('storing a result', () => {
  it.each<[FormulaValue[], string | undefined]>([
    [[], undefined],
    [[1], 'number'],
    [[1, 2.5], 'number'],
    [['a'], 'string'],
    [['a', 'b'], 'string'],
    [[false], 'boolean'],
    [[1, 'a'], undefined],
    [[true, 1], undefined],
  ])('formulaValueType(%j) is %s', (result, type) => {
    expect(formulaValueType(result)).toBe(type);
  });

  it('formulaValueData gives the value field of each value', () => {
    expect(formulaValueData([1, 'a', false])).toEqual([{ number: 1 }, { string: 'a' }, { boolean: false }]);
    expect(formulaValueData([])).toEqual([]);
  });
});
