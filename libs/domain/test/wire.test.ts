import { EntitySchema, FieldErrorSchema, ProblemSchema, ValueInputSchema } from '@entia/domain';
import { Value } from '@sinclair/typebox/value';

// The wire shapes take their patterns from names.ts: what a route refuses is what the rule refuses.

const ID = '5f1d7a0c9b1e8a0012345678';

describe('ValueInputSchema', () => {
  it.each<[string, unknown, boolean]>([
    ['a string value', { type: 'title', string: 'Dune' }, true],
    ['a system property', { type: '_parent', reference: ID }, true],
    ['an overwrite by id', { type: 'title', _id: ID, string: 'Dune' }, true],
    ['a property name outside the rule', { type: '__proto__', string: 'x' }, false],
    ['a property name too long', { type: 'x'.repeat(65), string: 'x' }, false],
    ['an uppercase reference', { type: 'author', reference: ID.toUpperCase() }, false],
    ['a short value id', { type: 'title', _id: ID.slice(1), string: 'x' }, false],
    ['an unknown field', { type: 'title', strings: 'x' }, false],
    ['no type', { string: 'x' }, false],
    ['a date as YYYY-MM-DD', { type: 'published', date: '2024-05-01' }, true],
    // Entu's web client: epoch ms (the descriptor's check then reads them, or refuses them).
    ['a date as epoch ms', { type: 'published', date: 1714510800000 }, true],
    ['a datetime as epoch ms', { type: 'seen', datetime: 1714557000000 }, true],
    ['a date too long for YYYY-MM-DD', { type: 'published', date: '2024-05-01T00:00Z' }, false],
    ['a date as a boolean', { type: 'published', date: true }, false],
    ['a datetime as an object', { type: 'seen', datetime: { $date: 0 } }, false],
  ])('%s: accepted %s', (_, input, accepted) => {
    expect(Value.Check(ValueInputSchema, input)).toBe(accepted);
  });
});

describe('EntitySchema', () => {
  it('publishes its values as additional properties, for which its TypeScript type is written by hand', () => {
    expect(EntitySchema).toMatchObject({ type: 'object', required: ['_id'], additionalProperties: { type: 'array' } });
  });
  it('refuses an entity whose _id breaks the id rule', () => {
    expect([Value.Check(EntitySchema, { _id: ID }), Value.Check(EntitySchema, { _id: 'nope' })]).toEqual([true, false]);
  });
});

describe('ProblemSchema', () => {
  it('takes its field errors from FieldErrorSchema, the type of every FieldError', () => {
    expect(ProblemSchema.properties.errors.items).toBe(FieldErrorSchema);
    expect([Value.Check(FieldErrorSchema, { pointer: '/0', message: 'bad' }), Value.Check(FieldErrorSchema, { pointer: '/0' })]).toEqual([true, false]);
  });
});
