import { DEFAULT_LIMITS, descriptorOf, fieldDescriptorOf, isCalendarDate } from '@entia/domain';
import { describeField, describeValueType } from './table';

// A browser's date picker (Entu's web client) sends the epoch ms of LOCAL midnight; the rows below
// are what `new Date(y, m, d)` gives under each TZ (Node 26, ICU time zone data), local mean times
// of old dates included.
const LOCAL_MIDNIGHTS: [zone: string, ms: number, date: string][] = [
  ['Europe/Tallinn, summer (UTC+3)', 1714510800000, '2024-05-01'],
  ['Europe/Tallinn, winter (UTC+2)', 1705269600000, '2024-01-15'],
  ['Europe/Tallinn, 1900 (local mean time, UTC+1:39)', -2208994740000, '1900-01-01'],
  ['America/New_York, summer (UTC−4)', 1714536000000, '2024-05-01'],
  ['America/New_York, winter (UTC−5)', 1705294800000, '2024-01-15'],
  ['America/New_York, year 1 (local mean time, UTC−4:56:02)', -62135579038000, '0001-01-01'],
  ['UTC', 1714521600000, '2024-05-01'],
  ['Pacific/Honolulu (UTC−10)', 1714557600000, '2024-05-01'],
  ['Asia/Kolkata (UTC+5:30)', 1714501800000, '2024-05-01'],
  ['Asia/Kathmandu (UTC+5:45)', 1714500900000, '2024-05-01'],
  ['Pacific/Auckland, winter (UTC+12)', 1714478400000, '2024-05-01'],
  ['Pacific/Chatham, winter (UTC+12:45)', 1714475700000, '2024-05-01'],
  ['Pacific/Auckland, summer (UTC+13)', 1705230000000, '2024-01-15'],
  ['Pacific/Tongatapu (UTC+13)', 1714474800000, '2024-05-01'],
  ['Europe/Tallinn, 9999-12-31', 253402207200000, '9999-12-31'],
];

// Local midnights of the offsets outside the window (UTC−11:00 and beyond, beyond UTC+13:00): read
// as the neighbouring day. The documented limit (docs/decisions.md, "Dates as epoch milliseconds").
const OUTSIDE_THE_WINDOW: [zone: string, ms: number, date: string][] = [
  ['Pacific/Pago_Pago 2024-05-01 (UTC−11)', 1714561200000, '2024-05-02'],
  ['Pacific/Chatham 2024-01-15, summer (UTC+13:45)', 1705227300000, '2024-01-14'],
  ['Pacific/Kiritimati 2024-05-01 (UTC+14)', 1714471200000, '2024-04-30'],
];

const NOT_A_MIDNIGHT = /epoch milliseconds of a midnight: a whole second within years 0000–9999/;

describeValueType(descriptorOf('date'), {
  fields: ['date'],
  accepts: [
    [{ date: '2024-02-29' }, { date: '2024-02-29' }],
    [{ date: '0050-03-15' }, { date: '0050-03-15' }],
    // 2024-05-01 picked in Tallinn (more in the zone table below).
    [{ date: 1714510800000 }, { date: '2024-05-01' }],
    [{ date: 0 }, { date: '1970-01-01' }],
    // JSON's -0 is the number zero.
    [{ date: -0 }, { date: '1970-01-01' }],
    // The bounds: a midnight at UTC−10:59:59 of 9999-12-31, one at UTC+13:00 of 0000-01-01.
    [{ date: 253402253999000 }, { date: '9999-12-31' }],
    [{ date: -62167266000000 }, { date: '0000-01-01' }],
  ],
  refuses: [
    [{ date: '2023-02-29' }, 'date', /real date/],
    [{ date: '2024-13-01' }, 'date', /real date/],
    [{ date: '2024-1-01' }, 'date', /YYYY-MM-DD/],
    // Digits in a JSON string are not a number: a string is a date's text.
    [{ date: '1714510800000' }, 'date', /YYYY-MM-DD/],
    [{ date: true }, 'date', /YYYY-MM-DD/],
    [{ date: null }, 'date', /YYYY-MM-DD/],
    // Not a whole second: a moment (`Date.now()`), a fraction of a millisecond.
    [{ date: 1714557654321 }, 'date', NOT_A_MIDNIGHT],
    [{ date: 1714510800500 }, 'date', NOT_A_MIDNIGHT],
    [{ date: 1714510800000.5 }, 'date', NOT_A_MIDNIGHT],
    [{ date: 20240101 }, 'date', NOT_A_MIDNIGHT],
    // Not finite (only reachable from code: JSON has no such numbers).
    [{ date: Number.NaN }, 'date', NOT_A_MIDNIGHT],
    [{ date: Number.POSITIVE_INFINITY }, 'date', NOT_A_MIDNIGHT],
    [{ date: Number.NEGATIVE_INFINITY }, 'date', NOT_A_MIDNIGHT],
    // Beyond the bounds: 10000-01-01, the day before 0000-01-01, huge numbers.
    [{ date: 253402254000000 }, 'date', NOT_A_MIDNIGHT],
    [{ date: -62167266001000 }, 'date', NOT_A_MIDNIGHT],
    [{ date: 8.64e15 }, 'date', NOT_A_MIDNIGHT],
    [{ date: 1e300 }, 'date', NOT_A_MIDNIGHT],
    [{ date: -Number.MAX_VALUE }, 'date', NOT_A_MIDNIGHT],
  ],
  // A formula sees a date as its text; it stores no computed date.
  formula: { reads: [[{ date: '1815-12-10' }, '1815-12-10']], stores: undefined },
});

describeField(fieldDescriptorOf('date'), {
  scalar: 'date',
  storedAs: 'as-is',
  operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  parses: [
    ['2024-02-29', '2024-02-29'],
    ['1999-12-31', '1999-12-31'],
    // Entu's search form: `published.date.gte=1714510800000` (more in the zone table below).
    ['1714510800000', '2024-05-01'],
    ['0', '1970-01-01'],
    ['253402253999000', '9999-12-31'],
    ['-62167266000000', '0000-01-01'],
  ],
  refusesFilter: [
    ['2023-02-29', /YYYY-MM-DD/],
    ['2024-05-01T00:00:00Z', /YYYY-MM-DD/],
    ['yesterday', /YYYY-MM-DD/],
    // Epoch ms are written as `String(ms)` writes an integer: no other spelling is read.
    ['-0', /epoch milliseconds of its midnight/],
    ['01714510800000', /epoch milliseconds/],
    ['+1714510800000', /epoch milliseconds/],
    ['1714510800000.0', /epoch milliseconds/],
    ['1.7145108e12', /epoch milliseconds/],
    [' 1714510800000', /epoch milliseconds/],
    ['0x10', /epoch milliseconds/],
    ['NaN', /epoch milliseconds/],
    ['Infinity', /epoch milliseconds/],
    ['', /epoch milliseconds/],
    ['1714557654321', /a whole second/],
    ['253402254000000', /years 0000–9999/],
    ['-62167266001000', /years 0000–9999/],
    ['99999999999999999999', /years 0000–9999/],
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

describe('a local midnight as epoch ms', () => {
  it.each([...LOCAL_MIDNIGHTS, ...OUTSIDE_THE_WINDOW])('%s: %d is read as %s in a value and in a filter alike', (_, ms, date) => {
    expect(descriptorOf('date').check({ date: ms }, { limits: DEFAULT_LIMITS })).toEqual({ date });
    expect(fieldDescriptorOf('date').filter.parse(String(ms))).toBe(date);
  });
});
