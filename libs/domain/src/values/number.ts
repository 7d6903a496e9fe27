import { Type } from '@sinclair/typebox';
import { ORDERED_OPERATORS, defineField, defineValueType, refuse } from './descriptor';

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** How a number field (a number, a file's size) reads a filter value. */
export const NUMBER_FILTER = {
  operators: ORDERED_OPERATORS,
  // JSON number syntax only: Number() would also read "0x10", " 1 " or "".
  parse: (text: string) => {
    const number = JSON_NUMBER.test(text) ? Number(text) : NaN;
    return Number.isFinite(number) ? number : undefined;
  },
  refused: 'must be a finite number',
};

export const NUMBER_FIELD = defineField({
  name: 'number',
  scalar: 'number',
  wire: { input: Type.Number(), output: Type.Number() },
  storedAs: 'as-is',
  filter: NUMBER_FILTER,
  sortKey: (value: number) => value,
  indexed: () => true,
  searchText: (value: number) => String(value),
});

/** A finite JSON number (SPEC §3). */
export const NUMBER_TYPE = defineValueType({
  type: 'number',
  fields: [NUMBER_FIELD],
  check: (input) => (typeof input.number !== 'number' || !Number.isFinite(input.number) ? refuse('number', 'must be a finite number') : { number: input.number }),
  formula: { read: (value) => value.number, stores: 'number' },
});
