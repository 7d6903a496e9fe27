import { MAX_ERROR_TEXT, MAX_FIELD_ERRORS, boundedErrors, clipText, type FieldError } from '@entia/domain';

/** Error answers are bounded whatever the input was (issue 14): a count, not a list, past the first few. */

const many = (n: number): FieldError[] => Array.from({ length: n }, (_, i) => ({ pointer: `/${i}/type`, message: 'required' }));

describe('boundedErrors', () => {
  it.each([
    [0, 0, 0],
    [1, 1, 0],
    [MAX_FIELD_ERRORS, MAX_FIELD_ERRORS, 0],
    [MAX_FIELD_ERRORS + 1, MAX_FIELD_ERRORS, 1],
    [100_000, MAX_FIELD_ERRORS, 100_000 - MAX_FIELD_ERRORS],
  ])('%i errors: shows %i, omits %i', (given, shown, omitted) => {
    const bounded = boundedErrors(many(given));
    expect(bounded.shown).toHaveLength(shown);
    expect(bounded.omitted).toBe(omitted);
    expect(bounded.shown).toEqual(many(given).slice(0, shown));
  });

  it.each<[string, FieldError, FieldError]>([
    ['a short error as it is', { parameter: 'a.string', message: 'unknown' }, { parameter: 'a.string', message: 'unknown' }],
    [
      'a long parameter clipped',
      { parameter: 'k'.repeat(100_000), message: 'unknown parameter' },
      { parameter: `${'k'.repeat(MAX_ERROR_TEXT - 1)}…`, message: 'unknown parameter' },
    ],
    ['a long pointer clipped', { pointer: `/${'p'.repeat(5000)}`, message: 'x' }, { pointer: `/${'p'.repeat(MAX_ERROR_TEXT - 2)}…`, message: 'x' }],
    ['a long message clipped', { pointer: '/0', message: 'm'.repeat(MAX_ERROR_TEXT + 1) }, { pointer: '/0', message: `${'m'.repeat(MAX_ERROR_TEXT - 1)}…` }],
    ['a message of exactly the limit kept', { pointer: '/0', message: 'm'.repeat(MAX_ERROR_TEXT) }, { pointer: '/0', message: 'm'.repeat(MAX_ERROR_TEXT) }],
  ])('%s', (_name, error, expected) => {
    expect(boundedErrors([error]).shown).toEqual([expected]);
  });
});

describe('clipText', () => {
  it.each([
    ['', 5, ''],
    ['abcde', 5, 'abcde'],
    ['abcdef', 5, 'abcd…'],
  ])('clipText(%j, %i) = %j', (text, max, expected) => expect(clipText(text, max)).toBe(expected));
});
