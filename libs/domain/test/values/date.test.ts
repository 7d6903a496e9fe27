import { descriptorOf, fieldDescriptorOf, isCalendarDate } from '@entia/domain';
import { describeField, describeValueType } from './table';

describeValueType(descriptorOf('date'), {
  fields: ['date'],
  accepts: [
    [{ date: '2024-02-29' }, { date: '2024-02-29' }],
    [{ date: '0050-03-15' }, { date: '0050-03-15' }],
  ],
  refuses: [
    [{ date: '2023-02-29' }, 'date', /real date/],
    [{ date: '2024-13-01' }, 'date', /real date/],
    [{ date: '2024-1-01' }, 'date', /YYYY-MM-DD/],
    [{ date: 20240101 }, 'date', /YYYY-MM-DD/],
  ],
  // A formula sees a date as its text; it stores no computed date.
  formula: { reads: [[{ date: '1815-12-10' }, '1815-12-10']], stores: undefined },
});

describeField(fieldDescriptorOf('date'), {
  storedAs: 'as-is',
  operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  parses: [
    ['2024-02-29', '2024-02-29'],
    ['1999-12-31', '1999-12-31'],
  ],
  refusesFilter: [
    ['2023-02-29', /YYYY-MM-DD/],
    ['2024-05-01T00:00:00Z', /YYYY-MM-DD/],
    ['yesterday', /YYYY-MM-DD/],
  ],
  sortKeys: [['2024-02-29', '2024-02-29']],
  indexed: [['2024-02-29', true]],
  searchText: [['2024-02-29', '2024-02-29']],
});

describe('isCalendarDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2100-02-29', false],
    ['2000-02-29', true],
    ['0001-01-01', true],
    ['2024-04-31', false],
    ['2024-00-10', false],
  ])('%s: %s', (text, expected) => {
    expect(isCalendarDate(text)).toBe(expected);
  });
});
