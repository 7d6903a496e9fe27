import {
  FORMULA_FUNCTIONS,
  MAX_FORMULA_LENGTH,
  MAX_FORMULA_TOKENS,
  formulaDependencies,
  parseFormula,
  type FormulaNode,
  type FormulaPath,
} from '@entia/domain';
import { DEFINITIONS, thrown } from './fixtures';

/**
 * Parsing formulas (SPEC §9): the tree each formula becomes, the refusals with the 1-based
 * position of the problem, the limits, and what a formula reads (its dependencies).
 */

const prop = (name: string): FormulaNode => ({ kind: 'property', name });
const lit = (value: string | number | boolean): FormulaNode => ({ kind: 'literal', value });
const call = (name: (typeof FORMULA_FUNCTIONS)[number], ...args: FormulaNode[]): FormulaNode => ({ kind: 'call', name, args });
const path = (text: string, kind: FormulaPath['kind'], via: string, type: string, property: string): FormulaPath => ({
  text,
  kind,
  via,
  type,
  property,
});

/** The message of the one field error a refused formula carries. */
function refusal(text: string): string {
  const error = thrown(() => parseFormula(text));
  expect(error.kind).toBe('invalid');
  expect(error.errors).toHaveLength(1);
  expect(error.errors[0]!.parameter).toBe('formula');
  expect(error.message).toBe(`formula does not parse: ${error.errors[0]!.message}`);
  return error.errors[0]!.message;
}

describe('parseFormula: operands', () => {
  it.each<[string, FormulaNode]>([
    ['price', prop('price')],
    ['_type', prop('_type')],
    ['_id', { kind: 'id' }],
    ['12', lit(12)],
    ['-0.5', lit(-0.5)],
    ['1e3', lit(1000)],
    ['2.5E-1', lit(0.25)],
    ['-0', lit(0)],
    ['true', lit(true)],
    ['false', lit(false)],
    ["'a b'", lit('a b')],
    ['"a b"', lit('a b')],
    ["''", lit('')],
    ['""', lit('')],
    [`"it's"`, lit("it's")],
    [`'say "hi"'`, lit('say "hi"')],
    [String.raw`'it\'s'`, lit("it's")],
    [String.raw`"a\"b"`, lit('a"b')],
    [String.raw`'back\\slash'`, lit('back\\slash')],
    [String.raw`'line\nbreak\ttab'`, lit('line\nbreak\ttab')],
    ["'(not a group) SUM'", lit('(not a group) SUM')],
    ["'ünïcødé 😀'", lit('ünïcødé 😀')],
  ])('%s', (text, root) => {
    expect(parseFormula(text)).toEqual({ text, root });
  });

  it.each<[string, FormulaPath]>([
    ['_child.row.amount', path('_child.row.amount', 'child', '_child', 'row', 'amount')],
    ['_child.*._id', path('_child.*._id', 'child', '_child', '*', '_id')],
    ['_referrer.invoice.total', path('_referrer.invoice.total', 'referrer', '_referrer', 'invoice', 'total')],
    ['_referrer.*._id', path('_referrer.*._id', 'referrer', '_referrer', '*', '_id')],
    ['customer.*.name', path('customer.*.name', 'reference', 'customer', '*', 'name')],
    ['customer.company.vat_no', path('customer.company.vat_no', 'reference', 'customer', 'company', 'vat_no')],
    ['_parent.*.name', path('_parent.*.name', 'reference', '_parent', '*', 'name')],
    ['_owner.person._id', path('_owner.person._id', 'reference', '_owner', 'person', '_id')],
    ['item.price-list.price', path('item.price-list.price', 'reference', 'item', 'price-list', 'price')],
  ])('path %s', (text, expected) => {
    expect(parseFormula(text).root).toEqual({ kind: 'path', path: expected });
  });
});

describe('parseFormula: the stack becomes a tree', () => {
  it.each<[string, string, FormulaNode]>([
    ['a function takes the whole stack', 'price quantity MULTIPLY', call('MULTIPLY', prop('price'), prop('quantity'))],
    ['Entu form: every value, then one function', 'a b c SUM', call('SUM', prop('a'), prop('b'), prop('c'))],
    ['chaining: a function result is one entry', 'a b SUM c MULTIPLY', call('MULTIPLY', call('SUM', prop('a'), prop('b')), prop('c'))],
    ['parentheses limit what a function takes', "'Total: ' (a b SUM) CONCAT", call('CONCAT', lit('Total: '), call('SUM', prop('a'), prop('b')))],
    ['nested groups', '((a b SUM) (c d SUM) MULTIPLY) 100 DIVIDE', call('DIVIDE', call('MULTIPLY', call('SUM', prop('a'), prop('b')), call('SUM', prop('c'), prop('d'))), lit(100))],
    ['a group of one entry is that entry', '(a) (1)', call('CONCAT', prop('a'), lit(1))],
    ['without a final function the stack is joined', "first ' ' last", call('CONCAT', prop('first'), lit(' '), prop('last'))],
    ['a group without a function is joined too', '(a b) c SUM', call('SUM', call('CONCAT', prop('a'), prop('b')), prop('c'))],
    ['a fixed function takes its operands from the top', 'a b c EQ', call('CONCAT', prop('a'), call('EQ', prop('b'), prop('c')))],
    ['ABS takes one', 'a b ABS SUM', call('SUM', prop('a'), call('ABS', prop('b')))],
    ['ROUND takes two', 'a b DIVIDE 2 ROUND', call('ROUND', call('DIVIDE', prop('a'), prop('b')), lit(2))],
    ['IF takes three', "a 5 GT 'big' 'small' IF", call('IF', call('GT', prop('a'), lit(5)), lit('big'), lit('small'))],
    ['EXISTS takes one', 'a EXISTS', call('EXISTS', prop('a'))],
    ['IN: the first entry is looked up in the others', "status 'open' 'new' IN", call('IN', prop('status'), lit('open'), lit('new'))],
    ['CONCAT_WS: the top entry is the separator', "a b ', ' CONCAT_WS", call('CONCAT_WS', prop('a'), prop('b'), lit(', '))],
    ['parentheses need no spaces', '(a b SUM)2 DIVIDE', call('DIVIDE', call('SUM', prop('a'), prop('b')), lit(2))],
    ['any whitespace separates', '\ta\n b\r\n  SUM  ', call('SUM', prop('a'), prop('b'))],
    ['lower-case words are properties, not functions', 'sum Sum', call('CONCAT', prop('sum'), prop('Sum'))],
  ])('%s: %s', (_, text, root) => {
    expect(parseFormula(text).root).toEqual(root);
  });

  it('every function of SPEC §9 is known', () => {
    expect([...FORMULA_FUNCTIONS].sort()).toEqual(
      ['CONCAT', 'CONCAT_WS', 'SUM', 'SUBTRACT', 'MULTIPLY', 'DIVIDE', 'AVERAGE', 'COUNT', 'MIN', 'MAX', 'ABS', 'ROUND', 'IF', 'EQ', 'NE', 'GT', 'GTE', 'LT', 'LTE', 'EXISTS', 'IN', 'NIN'].sort(),
    );
  });

  it('the formulas of the test definitions parse', () => {
    for (const definition of DEFINITIONS.values()) {
      if (definition.formula !== undefined) expect(() => parseFormula(definition.formula!)).not.toThrow();
    }
  });
});

describe('parseFormula: a malformed formula is refused with the position of the problem', () => {
  it.each<[string, string]>([
    // strings
    ["price 'abc", 'unterminated string at position 7'],
    ['"abc', 'unterminated string at position 1'],
    ["'abc\"", 'unterminated string at position 1'],
    ["'abc\\", 'unterminated string at position 1'],
    [String.raw`a 'x\'`, 'unterminated string at position 3'],
    [String.raw`'a\qb'`, String.raw`unknown escape \q (use \\ \' \" \n \t) at position 3`],
    ["'a'b", 'missing space after a string at position 4'],
    ["'a''b'", 'missing space after a string at position 4'],
    // functions and their operands
    ['price FOO', 'unknown function FOO at position 7'],
    ['a b SUMM', 'unknown function SUMM at position 5'],
    ['VAT', 'unknown function VAT at position 1'],
    ['SUM', 'SUM needs at least 1 operand at position 1'],
    ['COUNT', 'COUNT needs at least 1 operand at position 1'],
    ['a CONCAT_WS', 'CONCAT_WS needs at least 2 operands at position 3'],
    ['a IN', 'IN needs at least 2 operands at position 3'],
    ['a NIN', 'NIN needs at least 2 operands at position 3'],
    ['ABS', 'ABS needs 1 operand at position 1'],
    ['EXISTS', 'EXISTS needs 1 operand at position 1'],
    ['price ROUND', 'ROUND needs 2 operands at position 7'],
    ['price EQ', 'EQ needs 2 operands at position 7'],
    ['a GTE', 'GTE needs 2 operands at position 3'],
    ["a 5 GT 'big' IF", 'IF needs 3 operands at position 14'],
    ['a b c (x y IF)', 'IF needs 3 operands at position 12'],
    ['a (b EQ) c', 'EQ needs 2 operands at position 6'],
    ['a b SUM SUM ABS (SUM)', 'SUM needs at least 1 operand at position 18'],
    // parentheses
    ['(a b SUM', 'unclosed ( at position 1'],
    ['(a (b c) d', 'unclosed ( at position 1'],
    ['a b SUM)', 'unmatched ) at position 8'],
    [')', 'unmatched ) at position 1'],
    ['a () SUM', 'empty parentheses at position 3'],
    ['( )', 'empty parentheses at position 1'],
    // words
    ['price 1e999 SUM', 'number 1e999 is out of range at position 7'],
    ['a+b', 'unexpected "a+b" at position 1'],
    ['price 12abc', 'unexpected "12abc" at position 7'],
    ['-', 'unexpected "-" at position 1'],
    ['a $where', 'unexpected "$where" at position 3'],
    ["don't", `unexpected "don't" at position 1`],
    [`a ${'x'.repeat(70)}`, `unexpected "${'x'.repeat(40)}…" at position 3`],
    ['_api_key', '_api_key cannot be read by a formula at position 1'],
    ['x _child', '_child needs a type and a property, as _child.<type|*>.<property> at position 3'],
    ['_referrer COUNT', '_referrer needs a type and a property, as _referrer.<type|*>.<property> at position 1'],
    // paths
    ['a.b', 'path "a.b" must have three parts: <reference|_child|_referrer>.<type|*>.<property> at position 1'],
    ['x _child.row', 'path "_child.row" must have three parts: <reference|_child|_referrer>.<type|*>.<property> at position 3'],
    ['a.b.c.d', 'path "a.b.c.d" must have three parts: <reference|_child|_referrer>.<type|*>.<property> at position 1'],
    ['a..c', 'path "a..c" must have three parts: <reference|_child|_referrer>.<type|*>.<property> at position 1'],
    ['.5', 'path ".5" must have three parts: <reference|_child|_referrer>.<type|*>.<property> at position 1'],
    ['_id.*.name', 'path "_id.*.name" must start with _child, _referrer or a reference property at position 1'],
    ['9a.*.name', 'path "9a.*.name" must start with _child, _referrer or a reference property at position 1'],
    ['customer.b@d.name', 'path "customer.b@d.name" must name a type or * at position 1'],
    ['customer.**.name', 'path "customer.**.name" must name a type or * at position 1'],
    ['_child.*.na-me', 'path "_child.*.na-me" must end with a property name or _id at position 1'],
    ['_child.*._child', 'path "_child.*._child" must end with a property name or _id at position 1'],
    ['_child.*._api_key', '_api_key cannot be read by a formula at position 1'],
    ['person.*._api_key COUNT', '_api_key cannot be read by a formula at position 1'],
    ['_api_key.*.name', '_api_key cannot be read by a formula at position 1'],
    // positions count characters, across lines and beyond the BMP
    ['a\tb\nFOO', 'unknown function FOO at position 5'],
    ["'😀' FOO", 'unknown function FOO at position 5'],
    ["'😀😀' 'x", 'unterminated string at position 6'],
  ])('%j: %s', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it.each(['', ' ', '\n\t  '])('an empty formula (%j) is refused', (text) => {
    expect(refusal(text)).toBe('formula is empty');
  });

  it('a formula that is not a string is refused', () => {
    expect(thrown(() => parseFormula(42 as unknown as string)).errors).toEqual([{ parameter: 'formula', message: 'formula must be a string' }]);
  });
});

describe('parseFormula: limits', () => {
  it(`takes a formula of ${MAX_FORMULA_LENGTH} characters`, () => {
    const text = `'${'x'.repeat(MAX_FORMULA_LENGTH - 2)}'`;
    expect(parseFormula(text).root).toEqual(lit('x'.repeat(MAX_FORMULA_LENGTH - 2)));
  });

  it('counts characters, not UTF-16 units', () => {
    const text = `'${'😀'.repeat(MAX_FORMULA_LENGTH - 2)}'`;
    expect(text.length).toBeGreaterThan(MAX_FORMULA_LENGTH);
    expect(() => parseFormula(text)).not.toThrow();
  });

  it('refuses a longer one', () => {
    expect(refusal(`'${'x'.repeat(MAX_FORMULA_LENGTH - 1)}'`)).toBe(`formula is 2001 characters long, at most ${MAX_FORMULA_LENGTH} are allowed`);
  });

  it('refuses a huge one quickly', () => {
    expect(refusal('a '.repeat(5_000_000))).toBe(`formula is 10000000 characters long, at most ${MAX_FORMULA_LENGTH} are allowed`);
  });

  it(`takes ${MAX_FORMULA_TOKENS} tokens`, () => {
    const text = `${'1 '.repeat(MAX_FORMULA_TOKENS - 1)}SUM`;
    expect(parseFormula(text).root).toEqual(call('SUM', ...Array.from({ length: MAX_FORMULA_TOKENS - 1 }, () => lit(1))));
  });

  it('refuses one more, at the position of the first token too many', () => {
    expect(refusal(`${'1 '.repeat(MAX_FORMULA_TOKENS)}SUM`)).toBe(`more than ${MAX_FORMULA_TOKENS} tokens at position ${2 * MAX_FORMULA_TOKENS + 1}`);
  });

  it('counts parentheses as tokens', () => {
    const depth = MAX_FORMULA_TOKENS / 2;
    expect(refusal(`${'('.repeat(depth)}a${')'.repeat(depth)}`)).toBe(`more than ${MAX_FORMULA_TOKENS} tokens at position ${2 * depth + 1}`);
    expect(parseFormula(`${'('.repeat(depth - 1)}a${')'.repeat(depth - 1)}`).root).toEqual(prop('a'));
  });
});

describe('formulaDependencies: what a formula reads', () => {
  const dependencies = (text: string) => formulaDependencies(parseFormula(text));

  it('own properties, sorted and each once', () => {
    expect(dependencies('quantity price MULTIPLY price SUM')).toEqual({ properties: ['price', 'quantity'], paths: [] });
  });

  it('children', () => {
    expect(dependencies('_child.row.amount SUM')).toEqual({
      properties: [],
      paths: [path('_child.row.amount', 'child', '_child', 'row', 'amount')],
    });
  });

  it('referrers', () => {
    expect(dependencies('_referrer.*._id COUNT')).toEqual({
      properties: [],
      paths: [path('_referrer.*._id', 'referrer', '_referrer', '*', '_id')],
    });
  });

  it('a reference path reads the reference property of the entity too', () => {
    expect(dependencies("customer.*.name ' ' customer.company.code CONCAT")).toEqual({
      properties: ['customer'],
      paths: [path('customer.*.name', 'reference', 'customer', '*', 'name'), path('customer.company.code', 'reference', 'customer', 'company', 'code')],
    });
  });

  it('paths once each, in the order they first appear, through groups and both branches of IF', () => {
    const text = "(_child.row.amount SUM) 0 GT (_child.row.amount _child.fee.amount SUM) (_referrer.*._id COUNT) IF status ' ' CONCAT";
    expect(dependencies(text)).toEqual({
      properties: ['status'],
      paths: [
        path('_child.row.amount', 'child', '_child', 'row', 'amount'),
        path('_child.fee.amount', 'child', '_child', 'fee', 'amount'),
        path('_referrer.*._id', 'referrer', '_referrer', '*', '_id'),
      ],
    });
  });

  it('_id and literals read nothing that changes', () => {
    expect(dependencies("_id '-' 1 true CONCAT")).toEqual({ properties: [], paths: [] });
  });
});
