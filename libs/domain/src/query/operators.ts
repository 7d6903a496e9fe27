/**
 * The filter operators of SPEC §7, as one table: every module that reads, checks, compiles,
 * evaluates, rewrites or publishes a filter keeps its own `Record<Operator, …>` keyed by
 * `OPERATORS`, so an operator added here fails the build wherever it must be handled
 * (docs/architecture.md, "A filter operator"). This module imports nothing: the value descriptors
 * name operators, and the query's types are built on the value fields.
 */
export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'regex'] as const;
export type Operator = (typeof OPERATORS)[number];

/** A scalar a filter compares with, already typed for its field (references and datetimes as strings). */
export type Scalar = string | number | boolean;

/**
 * What an operator's operand is: `scalar`, one value of the field (`value`); `list`, several
 * (`values`, comma-separated in a query string); `boolean`, true or false whatever the field
 * (`value`); `pattern`, a `/pattern/flags` regular expression (`pattern`, `flags`).
 */
export type OperandKind = 'scalar' | 'list' | 'boolean' | 'pattern';

/** The operand fields a filter of each kind carries. */
export interface Operands {
  scalar: { value: Scalar };
  list: { values: Scalar[] };
  boolean: { value: boolean };
  pattern: { pattern: string; flags: string };
}

export interface OperatorSpec<K extends OperandKind = OperandKind> {
  readonly operand: K;
  /** What it asks of a property's values, for the API description. */
  readonly description: string;
}

/** Each operator's operand and meaning. A filter holds when some value of the property satisfies it. */
export const OPERATOR_TABLE = {
  eq: { operand: 'scalar', description: 'some value equals the operand; written without a suffix: `<property>.<field>=<value>`' },
  ne: { operand: 'scalar', description: 'some value differs from the operand' },
  gt: { operand: 'scalar', description: 'some value is greater than the operand' },
  gte: { operand: 'scalar', description: 'some value is greater than or equal to the operand' },
  lt: { operand: 'scalar', description: 'some value is less than the operand' },
  lte: { operand: 'scalar', description: 'some value is less than or equal to the operand' },
  in: { operand: 'list', description: 'some value equals one of the operands (comma-separated in a query string)' },
  exists: { operand: 'boolean', description: '`true`: the property has a value with this field; `false`: none has' },
  regex: { operand: 'pattern', description: 'some value matches `/pattern/flags` (flags from `imsu`; no lookaround, backreferences or `\\u`)' },
} as const satisfies { readonly [O in Operator]: OperatorSpec };

/** The operand kind of operator `O`. */
export type OperandKindOf<O extends Operator> = (typeof OPERATOR_TABLE)[O]['operand'];

/** The operand fields of a filter with operator `O`. */
export type OperandOf<O extends Operator> = Operands[OperandKindOf<O>];

/** The query-string key of a filter: `<property>.<field>[.<operator>]`, `eq` written without a suffix. */
export const filterKeyOf = (property: string, field: string, op: Operator): string => (op === 'eq' ? `${property}.${field}` : `${property}.${field}.${op}`);
