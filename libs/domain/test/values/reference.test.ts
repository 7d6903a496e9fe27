import { descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeField, describeValueType } from './table';

const ID = '5f1d7a0c9b1e8a0012345678';

describeValueType(descriptorOf('reference'), {
  fields: ['reference'],
  accepts: [[{ reference: ID }, { reference: ID }]],
  refuses: [
    [{ reference: ID.toUpperCase() }, 'reference', /entity id/],
    [{ reference: ID.slice(1) }, 'reference', /entity id/],
    [{ reference: 42 }, 'reference', /entity id/],
  ],
  formula: {
    reads: [
      // The label the worker keeps on the value, else the id.
      [{ reference: ID, string: 'ACME Ltd' }, 'ACME Ltd'],
      [{ reference: ID }, ID],
      // A string alone is no reference.
      [{ string: 'x' }, undefined],
    ],
    stores: undefined,
  },
});

describeField(fieldDescriptorOf('reference'), {
  storedAs: 'object-id',
  operators: ['eq', 'ne', 'in', 'exists'],
  parses: [[ID, ID]],
  refusesFilter: [
    ['abc', /24 hexadecimal/],
    [ID.toUpperCase(), /24 hexadecimal/],
    [`${ID}0`, /24 hexadecimal/],
  ],
  sortKeys: undefined,
  indexed: [[ID, true]],
  searchText: undefined,
});
