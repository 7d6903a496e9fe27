import { defineValueType } from './descriptor';
import { STRING_FIELD, checkString } from './string';

/** A long text (SPEC §3: at most 1 000 000 characters): a string in all but its limit. */
export const TEXT_TYPE = defineValueType({
  type: 'text',
  fields: [STRING_FIELD],
  check: (input, context) => checkString(input, context, context.limits.maxTextLength),
  formula: { read: (value) => value.string, stores: 'string' },
});
