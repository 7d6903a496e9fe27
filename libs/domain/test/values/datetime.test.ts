import { descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeField, describeValueType } from './table';

const NOT_EPOCH_MS = /epoch milliseconds: an integer within years 0000–9999/;

describeValueType(descriptorOf('datetime'), {
  fields: ['datetime'],
  accepts: [
    [{ datetime: '2024-05-01T12:00:00+02:00' }, { datetime: '2024-05-01T10:00:00.000Z' }],
    [{ datetime: '2024-05-01T12:00Z' }, { datetime: '2024-05-01T12:00:00.000Z' }],
    [{ datetime: '2024-12-31T22:00:00-03:00' }, { datetime: '2025-01-01T01:00:00.000Z' }],
    // Epoch ms, as Entu's web client sends a moment: that instant, in UTC.
    [{ datetime: 1714557000000 }, { datetime: '2024-05-01T09:50:00.000Z' }],
    [{ datetime: 1714557000123 }, { datetime: '2024-05-01T09:50:00.123Z' }],
    [{ datetime: -1 }, { datetime: '1969-12-31T23:59:59.999Z' }],
    [{ datetime: 0 }, { datetime: '1970-01-01T00:00:00.000Z' }],
    [{ datetime: -0 }, { datetime: '1970-01-01T00:00:00.000Z' }],
    // The bounds: the first and last millisecond of years 0000–9999.
    [{ datetime: -62167219200000 }, { datetime: '0000-01-01T00:00:00.000Z' }],
    [{ datetime: 253402300799999 }, { datetime: '9999-12-31T23:59:59.999Z' }],
  ],
  refuses: [
    [{ datetime: '2024-05-01T12:00:00' }, 'datetime', /with an offset/],
    [{ datetime: '2024-05-01' }, 'datetime', /ISO 8601/],
    [{ datetime: '2024-05-01T24:00:00Z' }, 'datetime', /ISO 8601/],
    // Digits in a JSON string are not a number.
    [{ datetime: '1714557600000' }, 'datetime', /ISO 8601/],
    [{ datetime: true }, 'datetime', /ISO 8601/],
    [{ datetime: 1714557600000.5 }, 'datetime', NOT_EPOCH_MS],
    [{ datetime: Number.NaN }, 'datetime', NOT_EPOCH_MS],
    [{ datetime: Number.POSITIVE_INFINITY }, 'datetime', NOT_EPOCH_MS],
    [{ datetime: -62167219200001 }, 'datetime', NOT_EPOCH_MS],
    [{ datetime: 253402300800000 }, 'datetime', NOT_EPOCH_MS],
    // Date's own limit, and beyond it.
    [{ datetime: 8.64e15 }, 'datetime', NOT_EPOCH_MS],
    [{ datetime: 1e300 }, 'datetime', NOT_EPOCH_MS],
  ],
  formula: { reads: [[{ datetime: '2024-05-01T10:00:00.000Z' }, '2024-05-01T10:00:00.000Z']], stores: undefined },
});

describeField(fieldDescriptorOf('datetime'), {
  scalar: 'datetime',
  // A BSON date: filters compare moments, whatever offset the filter value was written with.
  storedAs: 'date',
  operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  parses: [
    ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00.5Z', '2024-05-01T10:00:00.500Z'],
    // Entu's search form: `seen.datetime.lt=1714557000000`.
    ['1714557000000', '2024-05-01T09:50:00.000Z'],
    ['-1', '1969-12-31T23:59:59.999Z'],
    ['0', '1970-01-01T00:00:00.000Z'],
    ['253402300799999', '9999-12-31T23:59:59.999Z'],
  ],
  refusesFilter: [
    ['2024-05-01', /offset/],
    ['2024-05-01T10:00:00', /offset/],
    ['2024-02-30T10:00:00Z', /offset/],
    // Epoch ms are written as `String(ms)` writes an integer: no other spelling is read.
    ['-0', /epoch milliseconds/],
    ['01714557000000', /epoch milliseconds/],
    ['1714557000000.5', /an integer/],
    ['1.714557e12', /epoch milliseconds/],
    ['253402300800000', /years 0000–9999/],
    ['-62167219200001', /years 0000–9999/],
    ['99999999999999999999', /years 0000–9999/],
  ],
  sortKeys: [['2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.000Z']],
  indexed: [['2024-05-01T10:00:00.000Z', false]],
  searchText: undefined,
});
