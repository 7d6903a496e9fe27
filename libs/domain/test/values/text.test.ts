import { DEFAULT_LIMITS, descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeValueType } from './table';

// A text is a string with a larger limit: it shares the `string` field (tested in string.test.ts).
describeValueType(descriptorOf('text'), {
  fields: ['string'],
  accepts: [
    [{ string: 'x'.repeat(1_000_000) }, { string: 'x'.repeat(1_000_000) }],
    [{ string: 'line one\nline two' }, { string: 'line one\nline two' }],
  ],
  refuses: [
    [{ string: 'x'.repeat(1_000_001) }, 'string', /at most 1000000 characters/],
    [{ string: 5 }, 'string', /must be a string/],
    [{ string: '\uDC00' }, 'string', /well-formed Unicode/],
  ],
  formula: { reads: [[{ string: 'long' }, 'long']], stores: 'string' },
});

describe('value type text', () => {
  it('uses the same wire field as string', () => {
    expect(descriptorOf('text').fields).toEqual([fieldDescriptorOf('string')]);
  });

  it('takes its own configured limit, not the string one', () => {
    const context = { limits: { ...DEFAULT_LIMITS, maxStringLength: 1, maxTextLength: 4 } };
    expect(descriptorOf('text').check({ string: 'four' }, context)).toEqual({ string: 'four' });
    expect(descriptorOf('text').check({ string: 'five!' }, context)).toEqual({ refused: 'string', message: 'must be at most 4 characters' });
  });
});
