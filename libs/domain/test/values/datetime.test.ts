import { descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeField, describeValueType } from './table';

describeValueType(descriptorOf('datetime'), {
  fields: ['datetime'],
  accepts: [
    [{ datetime: '2024-05-01T12:00:00+02:00' }, { datetime: '2024-05-01T10:00:00.000Z' }],
    [{ datetime: '2024-05-01T12:00Z' }, { datetime: '2024-05-01T12:00:00.000Z' }],
    [{ datetime: '2024-12-31T22:00:00-03:00' }, { datetime: '2025-01-01T01:00:00.000Z' }],
  ],
  refuses: [
    [{ datetime: '2024-05-01T12:00:00' }, 'datetime', /with an offset/],
    [{ datetime: '2024-05-01' }, 'datetime', /ISO 8601/],
    [{ datetime: '2024-05-01T24:00:00Z' }, 'datetime', /ISO 8601/],
    [{ datetime: 1714557600000 }, 'datetime', /ISO 8601/],
  ],
  formula: { reads: [[{ datetime: '2024-05-01T10:00:00.000Z' }, '2024-05-01T10:00:00.000Z']], stores: undefined },
});

describeField(fieldDescriptorOf('datetime'), {
  // A BSON date: filters compare moments, whatever offset the filter value was written with.
  storedAs: 'date',
  operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  parses: [
    ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00.5Z', '2024-05-01T10:00:00.500Z'],
  ],
  refusesFilter: [
    ['2024-05-01', /offset/],
    ['2024-05-01T10:00:00', /offset/],
    ['2024-02-30T10:00:00Z', /offset/],
  ],
  sortKeys: [['2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.000Z']],
  indexed: [['2024-05-01T10:00:00.000Z', false]],
  searchText: undefined,
});
