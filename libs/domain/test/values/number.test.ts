import { descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeField, describeValueType } from './table';

describeValueType(descriptorOf('number'), {
  fields: ['number'],
  accepts: [
    [{ number: 0 }, { number: 0 }],
    [{ number: -12.5 }, { number: -12.5 }],
    [{ number: 1e308 }, { number: 1e308 }],
  ],
  refuses: [
    [{ number: '1' }, 'number', /finite number/],
    [{ number: NaN }, 'number', /finite number/],
    [{ number: Infinity }, 'number', /finite number/],
    [{ number: true }, 'number', /finite number/],
  ],
  formula: {
    reads: [
      [{ number: 3 }, 3],
      [{ number: 0 }, 0],
      [{ string: '3' }, undefined],
    ],
    stores: 'number',
  },
});

describeField(fieldDescriptorOf('number'), {
  scalar: 'number',
  storedAs: 'as-is',
  operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  parses: [
    ['1', 1],
    ['-0.5', -0.5],
    ['1e3', 1000],
    ['0', 0],
  ],
  refusesFilter: [
    ['0x10', /finite number/],
    [' 1', /finite number/],
    ['', /finite number/],
    ['01', /finite number/],
    ['1e999', /finite number/],
    ['NaN', /finite number/],
  ],
  sortKeys: [
    [-3, -3],
    [2.5, 2.5],
  ],
  indexed: [
    [0, true],
    [1e300, true],
  ],
  searchText: [
    [42, '42'],
    [1.5, '1.5'],
  ],
});
