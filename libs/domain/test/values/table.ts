import { DEFAULT_LIMITS, isRefusal, type CheckContext, type FieldDescriptor, type InputKind, type Operator, type ScalarKind, type ValueDescriptor } from '@entia/domain';

/**
 * The table every value type's test fills in: what its check accepts (and stores) and refuses,
 * and what a formula reads of its stored values. Each row is checked against the descriptor.
 */
export interface TypeTable {
  fields: string[];
  accepts: [input: Record<string, unknown>, stored: Record<string, unknown>][];
  refuses: [input: Record<string, unknown>, field: string, message: RegExp][];
  formula: { reads: [stored: Record<string, unknown>, seen: unknown][]; stores: 'number' | 'string' | 'boolean' | undefined };
  context?: CheckContext;
  /** How a client adds a value; absent: `value`, its field(s) as given. */
  input?: InputKind;
  /** The definition options its properties take (their names); absent: none. */
  options?: string[];
}

/** The table of one wire field: its storage, filters, sort key, attribute index and search text. */
export interface FieldTable {
  /** What the fronts show it as. */
  scalar: ScalarKind;
  storedAs: FieldDescriptor['storedAs'];
  operators: Operator[];
  parses: [text: string, scalar: unknown][];
  refusesFilter: [text: string, message: RegExp][];
  /** Rows of value → sort key; `undefined` when the field cannot be sorted by. */
  sortKeys: [value: unknown, key: unknown][] | undefined;
  indexed: [value: unknown, indexed: boolean][];
  /** Rows of value → searched text; `undefined` when `q` does not search the field. */
  searchText: [value: unknown, text: string][] | undefined;
}

export function describeValueType(descriptor: ValueDescriptor, table: TypeTable): void {
  const context = table.context ?? { limits: DEFAULT_LIMITS };
  describe(`value type ${descriptor.type}`, () => {
    it('names its wire fields', () => {
      expect(descriptor.fields.map((field) => field.name)).toEqual(table.fields);
    });

    it.each(table.accepts)('accepts %j and stores %j', (input, stored) => {
      expect(descriptor.check(input, context)).toEqual(stored);
    });

    it.each(table.refuses)('refuses %j at %s', (input, field, message) => {
      const result = descriptor.check(input, context);
      if (!isRefusal(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
      expect(result.refused).toBe(field);
      expect(result.message).toMatch(message);
    });

    it.each(table.formula.reads)('a formula reads %j as %j', (stored, seen) => {
      expect(descriptor.formula.read(stored)).toEqual(seen);
    });

    it(`a formula result it stores: ${table.formula.stores ?? 'none'}`, () => {
      expect(descriptor.formula.stores).toBe(table.formula.stores);
    });

    it(`a client adds a value as ${table.input ?? 'value'}`, () => {
      expect(descriptor.input ?? 'value').toBe(table.input ?? 'value');
    });

    it(`takes the definition options ${JSON.stringify(table.options ?? [])}`, () => {
      expect((descriptor.options ?? []).map((option) => option.name)).toEqual(table.options ?? []);
    });
  });
}

export function describeField(field: FieldDescriptor, table: FieldTable): void {
  describe(`value field ${field.name}`, () => {
    it(`is shown as ${table.scalar}`, () => {
      expect(field.scalar).toBe(table.scalar);
    });

    it(`is stored ${table.storedAs}`, () => {
      expect(field.storedAs).toBe(table.storedAs);
    });

    it('takes exactly its filter operators', () => {
      expect([...field.filter.operators].sort()).toEqual([...table.operators].sort());
    });

    it.each(table.parses)('reads the filter value %j as %j', (text, scalar) => {
      expect(field.filter.parse(text)).toEqual(scalar);
    });

    it.each(table.refusesFilter)('refuses the filter value %j', (text, message) => {
      expect(field.filter.parse(text)).toBeUndefined();
      expect(field.filter.refused).toMatch(message);
    });

    if (table.sortKeys === undefined) {
      it('cannot be sorted by', () => expect(field.sortKey).toBeUndefined());
    } else {
      it.each(table.sortKeys)('sorts %j by %j', (value, key) => expect(field.sortKey?.(value as never)).toEqual(key));
    }

    it.each(table.indexed)('%j in the attribute index: %s', (value, indexed) => {
      expect(field.indexed?.(value as never) ?? false).toBe(indexed);
    });

    if (table.searchText === undefined) {
      it('is not searched', () => expect(field.searchText).toBeUndefined());
    } else {
      it.each(table.searchText)('searches %j as %j', (value, text) => expect(field.searchText?.(value as never)).toBe(text));
    }
  });
}
