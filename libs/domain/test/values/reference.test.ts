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
  options: ['reference_query'],
});

describeField(fieldDescriptorOf('reference'), {
  scalar: 'id',
  storedAs: 'object-id',
  operators: ['eq', 'ne', 'in', 'exists'],
  parses: [[ID, ID]],
  refusesFilter: [
    ['abc', /24 hexadecimal/],
    [ID.toUpperCase(), /24 hexadecimal/],
    [`${ID}0`, /24 hexadecimal/],
  ],
  // by the id (Entu's table headers sort a reference column so); the label sorts as `string`
  sortKeys: [
    [ID, ID],
    ['000000000000000000000001', '000000000000000000000001'],
  ],
  indexed: [[ID, true]],
  searchText: undefined,
});

describe('reference: the label it carries', () => {
  it('is the string field, filtered and sorted as any string, never written by a client', () => {
    const reference = descriptorOf('reference');
    expect(reference.carries).toEqual([fieldDescriptorOf('string')]);
    expect(reference.fields.map((field) => field.name)).toEqual(['reference']);
  });

  it('is carried by no other type', () => {
    for (const type of ['string', 'text', 'number', 'boolean', 'date', 'datetime', 'file'] as const) expect(descriptorOf(type).carries).toBeUndefined();
  });
});
