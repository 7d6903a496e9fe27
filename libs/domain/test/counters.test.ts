import { COUNTER_TYPE } from '../src/values/counter';
import { MAX_COUNTER_STEP, numbered, planCounters, type ValueInput } from '../src';
import { def, entityWith, hexId, thrown, val } from './fixtures';

describe('counter properties (issue 33, item 6)', () => {
  const definitions = new Map([def('no', 'counter'), def('title', 'string'), def('nos', 'counter', { list: true })].map((d) => [d.name, d]));
  const NO = hexId(0x301);
  const existing = entityWith({ extra: { no: [val('no', { number: 7, string: '7' }, NO)] } });

  it('a new counter value waits for its number; other values pass untouched', () => {
    const plan = planCounters([{ type: 'title', string: 'x' }, { type: 'no', counter: 1 }, { type: 'nos', counter: 5, language: 'et' }], definitions);
    expect(plan.requests).toEqual([
      { index: 1, property: 'no', step: 1 },
      { index: 2, property: 'nos', step: 5 },
    ]);
    expect(numbered(plan, [8, 20])).toEqual([{ type: 'title', string: 'x' }, { type: 'no', number: 8 }, { type: 'nos', number: 20, language: 'et' }]);
  });

  it("an existing value sent back with its own text and `counter`, as Entu's form does on leaving the field, stays what it is", () => {
    const plan = planCounters([{ type: 'no', _id: NO, string: '7', counter: 1 }], definitions, existing);
    expect(plan).toEqual({ items: [{ type: 'no', _id: NO, number: 7 }], requests: [] });
    expect(planCounters([{ type: 'no', _id: NO, counter: 1 }], definitions, existing).items).toEqual([{ type: 'no', _id: NO, number: 7 }]);
  });

  it.each<[string, ValueInput, string]>([
    ['counter on a property that is no counter', { type: 'title', string: 'x', counter: 1 }, '/0/counter'],
    ['a number of its own', { type: 'no', number: 5 }, '/0/number'],
    ['a number of its own beside counter', { type: 'no', number: 5, counter: 1 }, '/0/number'],
    ['a text of its own', { type: 'no', string: '5', counter: 1 }, '/0/string'],
    ['nothing at all', { type: 'no' }, '/0/counter'],
    ['a step of 0', { type: 'no', counter: 0 }, '/0/counter'],
    ['a negative step', { type: 'no', counter: -1 }, '/0/counter'],
    ['a fractional step', { type: 'no', counter: 1.5 }, '/0/counter'],
    ['a step past the most', { type: 'no', counter: MAX_COUNTER_STEP + 1 }, '/0/counter'],
    ['a step as text', { type: 'no', counter: '1' }, '/0/counter'],
    ['an operator as the step', { type: 'no', counter: { $inc: 1 } }, '/0/counter'],
    ['an existing value changed', { type: 'no', _id: NO, string: '8', counter: 1 }, '/0/string'],
    ['an _id that is no value of it', { type: 'no', _id: hexId(0x999), counter: 1 }, '/0/_id'],
  ])('%s → 400 at %s', (_name, item, pointer) => {
    const error = thrown(() => planCounters([item], definitions, existing));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.pointer)).toEqual([pointer]);
  });

  it.each([
    [{ number: 1 }, { number: 1, string: '1' }],
    [{ number: 123456 }, { number: 123456, string: '123456' }],
    [{ number: 0 }, undefined],
    [{ number: 1.5 }, undefined],
    [{ number: Number.MAX_SAFE_INTEGER + 1 }, undefined],
  ])('the counter type stores %j as %j (and refuses what no allocation gives)', (input, stored) => {
    const result = COUNTER_TYPE.check(input, { limits: { maxStringLength: 10, maxTextLength: 10, maxFileSize: 10 } });
    if (stored) expect(result).toEqual(stored);
    else expect(result).toMatchObject({ refused: 'number' });
  });
});
