import { Type } from '@sinclair/typebox';
import { defineField, defineValueType, refuse } from './descriptor';

/** Filtered on by equality and existence only; sorted false before true (as 0 and 1: a sort key is a string or a number). */
export const BOOLEAN_FIELD = defineField({
  name: 'boolean',
  scalar: 'boolean',
  wire: { input: Type.Boolean(), output: Type.Boolean() },
  storedAs: 'as-is',
  filter: {
    operators: ['eq', 'exists'],
    parse: (text: string) => (text === 'true' ? true : text === 'false' ? false : undefined),
    refused: 'must be true or false',
  },
  sortKey: (value: boolean) => (value ? 1 : 0),
  indexed: () => true,
});

export const BOOLEAN_TYPE = defineValueType({
  type: 'boolean',
  fields: [BOOLEAN_FIELD],
  check: (input) => (typeof input.boolean !== 'boolean' ? refuse('boolean', 'must be true or false') : { boolean: input.boolean }),
  formula: { read: (value) => value.boolean, stores: 'boolean' },
});
