import { defineValueType, refuse } from './descriptor';
import { NUMBER_FIELD } from './number';
import { STRING_FIELD } from './string';

/**
 * A number the server allocates: each write of `{"counter": 1}` to a counter
 * property gets the next number of that property in the database (`counters.ts`). Stored as a
 * number; it carries the same number as text in `string`, which Entu's client shows and keeps.
 * Clients never write the number itself: `counterRequests` refuses it before this check runs.
 */
export const COUNTER_TYPE = defineValueType({
  type: 'counter',
  fields: [NUMBER_FIELD],
  input: 'counter',
  carries: [STRING_FIELD],
  check: (input) =>
    typeof input.number === 'number' && Number.isSafeInteger(input.number) && input.number > 0
      ? { number: input.number, string: String(input.number) }
      : refuse('number', 'a counter value is a whole number from 1 up'),
  formula: { read: (value) => value.number },
});
