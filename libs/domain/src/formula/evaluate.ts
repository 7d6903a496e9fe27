import type { Properties } from '../entity';
import type { ValueDescriptor } from '../values/descriptor';
import { VALUE_DESCRIPTORS } from '../values/registry';
import { STRING_FIELD } from '../values/string';
import type { Value, ValueData } from '../values/types';
import { MAX_FORMULA_STRING, type Formula, type FormulaFunction, type FormulaNode, type FormulaPath, type FormulaValue } from './ast';

/** What a formula reads; the caller does the I/O, the evaluator only looks values up. */
export interface FormulaContext {
  /** The entity's own id, for `_id`. */
  id: string;
  /** The entity's own properties (for computed ones, the values already computed in this pass). */
  properties: Properties;
  /**
   * The values at a path (see `formulaDependencies`), as plain scalars: `formulaValuesOf` turns
   * stored values into them. Anything else in the list (NaN, objects) is ignored.
   */
  resolve(path: FormulaPath): readonly FormulaValue[];
}

/** A failure (type error, zero divisor, non-finite number): the whole formula has no value. */
class Failure {}
const FAILURE = new Failure();
const failure = (): never => {
  throw FAILURE;
};

const isScalar = (value: unknown): value is FormulaValue =>
  typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

/**
 * Whose reading of a stored value wins, each type's `formula.read` asked in turn. Types that read
 * the plain `string` field come last: other values carry one too (a reference its label), and
 * there the type's own reading is meant (`_created` holds a datetime and a reference: the datetime).
 */
const readsString = (descriptor: ValueDescriptor) => descriptor.fields.some((field) => field === STRING_FIELD);
const READERS: readonly ValueDescriptor[] = [...VALUE_DESCRIPTORS.filter((d) => !readsString(d)), ...VALUE_DESCRIPTORS.filter(readsString)];

/**
 * The scalar a formula sees for each stored value: the number, boolean, date or datetime (ISO
 * text), a reference's label (`string`) or else its id, a file's name, or the string.
 */
export function formulaValuesOf(values: readonly Value[]): FormulaValue[] {
  const scalars: FormulaValue[] = [];
  for (const value of values) {
    const scalar = READERS.reduce<unknown>((found, descriptor) => found ?? descriptor.formula.read(value), undefined);
    if (isScalar(scalar)) scalars.push(scalar);
  }
  return scalars;
}

/**
 * Evaluates a parsed formula: the values the property gets, or [] for none (no input, or a
 * failure such as a division by zero or a type error). Never throws for any data; an exception
 * thrown by `context.resolve` is passed on.
 */
export function evaluateFormula(formula: Formula, context: FormulaContext): FormulaValue[] {
  try {
    return evaluate(formula.root, context);
  } catch (error) {
    if (error instanceof Failure) return [];
    throw error;
  }
}

/** The value field a result is stored in, or undefined when it is empty or mixes types. */
export function formulaValueType(result: readonly FormulaValue[]): 'number' | 'string' | 'boolean' | undefined {
  const type = typeof result[0];
  if (type !== 'number' && type !== 'string' && type !== 'boolean') return undefined;
  return result.every((value) => typeof value === type) ? type : undefined;
}

/** A result as value data to store: `{number}`, `{string}` or `{boolean}` per value. */
export function formulaValueData(result: readonly FormulaValue[]): ValueData[] {
  return result.map((value) =>
    typeof value === 'number' ? { number: value } : typeof value === 'boolean' ? { boolean: value } : { string: value },
  );
}

function evaluate(node: FormulaNode, context: FormulaContext): FormulaValue[] {
  switch (node.kind) {
    case 'literal':
      return [node.value];
    case 'id':
      return [context.id];
    case 'property':
      return formulaValuesOf(Object.hasOwn(context.properties, node.name) ? (context.properties[node.name] ?? []) : []);
    case 'path':
      return context.resolve(node.path).filter(isScalar);
    case 'call':
      return call(node.name, node.args, context);
  }
}

function call(name: FormulaFunction, args: readonly FormulaNode[], context: FormulaContext): FormulaValue[] {
  const one = (index: number) => evaluate(args[index]!, context);
  const flat = (from = 0, to = args.length) => args.slice(from, to).flatMap((arg) => evaluate(arg, context));
  switch (name) {
    case 'CONCAT':
      return concat(flat(), '');
    case 'CONCAT_WS': {
      const values = flat(0, -1);
      const separator = single(one(args.length - 1)) ?? failure();
      return concat(values, text(separator));
    }
    case 'SUM':
      return finite(numbers(flat()).reduce((a, b) => a + b, 0));
    case 'MULTIPLY': {
      // A product of nothing is no value: 1, the neutral, would read as a real total.
      const factors = numbers(flat());
      return factors.length === 0 ? [] : finite(factors.reduce((a, b) => a * b));
    }
    case 'COUNT':
      return [flat().length];
    case 'SUBTRACT':
    case 'DIVIDE':
    case 'AVERAGE':
    case 'MIN':
    case 'MAX':
      return reduce(name, flat());
    case 'IN':
    case 'NIN': {
      const needles = one(0);
      const haystack = flat(1);
      const found = needles.some((needle) => haystack.includes(needle));
      return [name === 'IN' ? found : !found];
    }
    case 'ABS':
      return numbers(one(0)).map(Math.abs);
    case 'ROUND': {
      const values = numbers(one(0));
      const digits = single(one(1));
      if (typeof digits !== 'number' || !Number.isInteger(digits) || Math.abs(digits) > 15) return failure();
      return values.map((value) => round(value, digits));
    }
    case 'EXISTS':
      return [one(0).length > 0];
    case 'EQ':
    case 'NE':
    case 'GT':
    case 'GTE':
    case 'LT':
    case 'LTE':
      return compare(name, one(0), one(1));
    case 'IF': {
      const condition = one(0);
      if (condition.length > 1 || (condition.length === 1 && typeof condition[0] !== 'boolean')) return failure();
      return one(condition[0] === true ? 1 : 2);
    }
  }
}

/** The one value of an operand; undefined when it has none; a failure when it has several. */
function single(values: FormulaValue[]): FormulaValue | undefined {
  if (values.length > 1) return failure();
  return values[0];
}

function numbers(values: FormulaValue[]): number[] {
  if (!values.every((value) => typeof value === 'number')) return failure();
  return values as number[];
}

/**
 * An arithmetic result, or a failure when it is not finite. A fraction is kept to 15 significant
 * digits, which is what a double holds reliably: `0.1 0.2 SUM` is 0.3, not 0.30000000000000004.
 */
function finite(value: number): FormulaValue[] {
  if (!Number.isFinite(value)) return failure();
  return [Number.isInteger(value) ? value || 0 : Number(value.toPrecision(15))];
}

const text = (value: FormulaValue) => String(value);

function concat(values: FormulaValue[], separator: string): FormulaValue[] {
  if (values.length === 0) return [];
  let length = -separator.length;
  const parts = values.map((value) => {
    const part = text(value);
    length += separator.length + part.length;
    // Checked as it grows: a huge list of values must not reach join() and its length limit.
    if (length > MAX_FORMULA_STRING) failure();
    return part;
  });
  return [parts.join(separator)];
}

function reduce(name: 'SUBTRACT' | 'DIVIDE' | 'AVERAGE' | 'MIN' | 'MAX', values: FormulaValue[]): FormulaValue[] {
  if (values.length === 0) return [];
  if ((name === 'MIN' || name === 'MAX') && values.every((value) => typeof value === 'string')) {
    const strings = values as string[];
    return [strings.reduce((a, b) => ((name === 'MIN' ? b < a : b > a) ? b : a))];
  }
  const [first, ...rest] = numbers(values);
  switch (name) {
    case 'SUBTRACT':
      return finite(rest.reduce((a, b) => a - b, first!));
    case 'DIVIDE':
      if (rest.includes(0)) return failure();
      return finite(rest.reduce((a, b) => a / b, first!));
    case 'AVERAGE': {
      const sum = rest.reduce((a, b) => a + b, first!);
      // Where the plain sum overflows, summing scaled values still finds a finite mean.
      return finite(Number.isFinite(sum) ? sum / values.length : (values as number[]).reduce((a, b) => a + b / values.length, 0));
    }
    case 'MIN':
      return [Math.min(first!, ...rest)];
    case 'MAX':
      return [Math.max(first!, ...rest)];
  }
}

/** Rounds half away from zero to `digits` decimals (negative: to tens, hundreds…), free of binary noise. */
function round(value: number, digits: number): number {
  const scale = 10 ** Math.abs(digits);
  const magnitude = Math.abs(value);
  // toPrecision(15) removes the noise of the scaling: 1.005 * 100 is 100.49999999999999.
  const shifted = Number((digits >= 0 ? magnitude * scale : magnitude / scale).toPrecision(15));
  if (!Number.isFinite(shifted)) return value;
  const rounded = Math.round(shifted);
  const result = Math.sign(value) * (digits >= 0 ? rounded / scale : rounded * scale);
  return Number.isFinite(result) ? result || 0 : failure();
}

function compare(name: 'EQ' | 'NE' | 'GT' | 'GTE' | 'LT' | 'LTE', left: FormulaValue[], right: FormulaValue[]): FormulaValue[] {
  const a = single(left);
  const b = single(right);
  if (a === undefined || b === undefined) return [];
  if (name === 'EQ') return [a === b];
  if (name === 'NE') return [a !== b];
  if (typeof a !== typeof b || typeof a === 'boolean') return failure();
  switch (name) {
    case 'GT':
      return [a > b];
    case 'GTE':
      return [a >= b];
    case 'LT':
      return [a < b];
    case 'LTE':
      return [a <= b];
  }
}
