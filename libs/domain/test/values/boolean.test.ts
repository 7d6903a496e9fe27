import { descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeField, describeValueType } from './table';

describeValueType(descriptorOf('boolean'), {
  fields: ['boolean'],
  accepts: [
    [{ boolean: true }, { boolean: true }],
    [{ boolean: false }, { boolean: false }],
  ],
  refuses: [
    [{ boolean: 'true' }, 'boolean', /true or false/],
    [{ boolean: 1 }, 'boolean', /true or false/],
  ],
  formula: {
    reads: [
      [{ boolean: false }, false],
      [{}, undefined],
    ],
    stores: 'boolean',
  },
});

describeField(fieldDescriptorOf('boolean'), {
  scalar: 'boolean',
  storedAs: 'as-is',
  operators: ['eq', 'exists'],
  parses: [
    ['true', true],
    ['false', false],
  ],
  refusesFilter: [
    ['TRUE', /true or false/],
    ['1', /true or false/],
    ['', /true or false/],
  ],
  // false before true; a sort key is a string or a number
  sortKeys: [
    [false, 0],
    [true, 1],
  ],
  indexed: [
    [true, true],
    [false, true],
  ],
  searchText: undefined,
});
