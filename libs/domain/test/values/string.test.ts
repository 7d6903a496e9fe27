import { DEFAULT_LIMITS, descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeField, describeValueType } from './table';

const LONE = '\uD800';

describeValueType(descriptorOf('string'), {
  fields: ['string'],
  accepts: [
    [{ string: 'hello' }, { string: 'hello' }],
    [{ string: '' }, { string: '' }],
    [{ string: 'x'.repeat(10_000) }, { string: 'x'.repeat(10_000) }],
    [{ string: '🌍 Ülle' }, { string: '🌍 Ülle' }],
  ],
  refuses: [
    [{ string: 1 }, 'string', /must be a string/],
    [{ string: null }, 'string', /must be a string/],
    [{ string: 'x'.repeat(10_001) }, 'string', /at most 10000 characters/],
    [{ string: `a${LONE}b` }, 'string', /well-formed Unicode/],
  ],
  formula: {
    reads: [
      [{ string: 'a' }, 'a'],
      [{}, undefined],
    ],
    stores: 'string',
  },
});

describe('value type string: the limit is configurable, and `_sharing` allows only its values', () => {
  const string = descriptorOf('string');
  it('takes the configured limit', () => {
    const context = { limits: { ...DEFAULT_LIMITS, maxStringLength: 3 } };
    expect(string.check({ string: 'abc' }, context)).toEqual({ string: 'abc' });
    expect(string.check({ string: 'abcd' }, context)).toEqual({ refused: 'string', message: 'must be at most 3 characters' });
  });

  it('refuses a value outside `allowed`', () => {
    const context = { limits: DEFAULT_LIMITS, allowed: ['private', 'public'] };
    expect(string.check({ string: 'public' }, context)).toEqual({ string: 'public' });
    expect(string.check({ string: 'everyone' }, context)).toEqual({ refused: 'string', message: 'must be one of private, public' });
  });
});

describeField(fieldDescriptorOf('string'), {
  scalar: 'string',
  storedAs: 'as-is',
  operators: ['eq', 'ne', 'regex', 'in', 'exists'],
  parses: [
    ['Ann', 'Ann'],
    ['', ''],
    ['x'.repeat(10_000), 'x'.repeat(10_000)],
    ['$where', '$where'],
  ],
  refusesFilter: [['x'.repeat(10_001), /too long/]],
  sortKeys: [
    ['Émile', 'emile'],
    ['ÅNGSTRÖM', 'angstrom'],
    // Only the first 256 characters make the key.
    ['a'.repeat(300), 'a'.repeat(256)],
  ],
  indexed: [
    ['short', true],
    ['x'.repeat(256), true],
    ['x'.repeat(257), false],
  ],
  searchText: [['Crème Brûlée', 'Crème Brûlée']],
});
