/** A plain scalar a formula computes with and produces. Dates and datetimes are ISO strings. */
export type FormulaValue = number | string | boolean;

/** The longest formula accepted, in characters. */
export const MAX_FORMULA_LENGTH = 2000;
/** The most tokens a formula may have (parentheses count as tokens). */
export const MAX_FORMULA_TOKENS = 200;
/** The longest string a formula may build; longer results are a failure (no value). */
export const MAX_FORMULA_STRING = 1_000_000;
/**
 * Formula definitions one type may have: every write of one of its entities evaluates them all (up
 * to four passes), so their number bounds the work of a write.
 */
export const MAX_FORMULAS_PER_TYPE = 50;

/**
 * Values read from other entities: `_child.<type|*>.<property>`, `_referrer.<type|*>.<property>`
 * or `<reference property>.<type|*>.<property>`.
 */
export interface FormulaPath {
  /** As written, e.g. `_child.row.amount`; two equal paths have the same text. */
  text: string;
  /** Children (`_parent` points here), referrers (any reference points here), or referenced entities. */
  kind: 'child' | 'referrer' | 'reference';
  /** `_child`, `_referrer`, or the reference property of this entity that is followed. */
  via: string;
  /** The `name` of the type the other entities must have, or `*` for any type. */
  type: string;
  /** The property read on them; `_id` reads their ids. */
  property: string;
}

/** The functions of SPEC §9. */
export const FORMULA_FUNCTIONS = [
  'CONCAT',
  'CONCAT_WS',
  'SUM',
  'SUBTRACT',
  'MULTIPLY',
  'DIVIDE',
  'AVERAGE',
  'COUNT',
  'MIN',
  'MAX',
  'ABS',
  'ROUND',
  'IF',
  'EQ',
  'NE',
  'GT',
  'GTE',
  'LT',
  'LTE',
  'EXISTS',
  'IN',
  'NIN',
] as const;
export type FormulaFunction = (typeof FORMULA_FUNCTIONS)[number];

/**
 * How many stack entries a function takes. `all`: every entry of its group (at least `min`);
 * `fixed`: exactly `count` entries from the top.
 */
export type Arity = { kind: 'all'; min: number } | { kind: 'fixed'; count: number };

const all = (min = 1): Arity => ({ kind: 'all', min });
const fixed = (count: number): Arity => ({ kind: 'fixed', count });

export const ARITY: Readonly<Record<FormulaFunction, Arity>> = {
  CONCAT: all(),
  CONCAT_WS: all(2),
  SUM: all(),
  SUBTRACT: all(),
  MULTIPLY: all(),
  DIVIDE: all(),
  AVERAGE: all(),
  COUNT: all(),
  MIN: all(),
  MAX: all(),
  IN: all(2),
  NIN: all(2),
  ABS: fixed(1),
  EXISTS: fixed(1),
  ROUND: fixed(2),
  EQ: fixed(2),
  NE: fixed(2),
  GT: fixed(2),
  GTE: fixed(2),
  LT: fixed(2),
  LTE: fixed(2),
  IF: fixed(3),
};

/** A parsed formula as a tree: what the stack machine would build, with each call's operands. */
export type FormulaNode =
  | { kind: 'literal'; value: FormulaValue }
  | { kind: 'id' }
  | { kind: 'property'; name: string }
  | { kind: 'path'; path: FormulaPath }
  | { kind: 'call'; name: FormulaFunction; args: FormulaNode[] };

export interface Formula {
  /** The text it was parsed from. */
  text: string;
  root: FormulaNode;
}

export function isFormulaFunction(word: string): word is FormulaFunction {
  return (FORMULA_FUNCTIONS as readonly string[]).includes(word);
}
