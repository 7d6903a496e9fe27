import { Type } from '@sinclair/typebox';
import { ORDERED_OPERATORS, defineField, defineValueType, refuse, type Refusal } from './descriptor';
import { dateOfEpoch, epochOfText } from './epoch';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Not Date.UTC: it reads years 0–99 as 1900–1999, which would refuse every date before year 100.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A filter's date: its `YYYY-MM-DD` text, or the day of a local midnight written as epoch ms. */
function parseDate(text: string): string | undefined {
  if (isCalendarDate(text)) return text;
  const ms = epochOfText(text);
  return ms === undefined ? undefined : dateOfEpoch(ms);
}

/**
 * Kept as its `YYYY-MM-DD` text, which orders and compares like the dates themselves. Given as
 * `YYYY-MM-DD` or, as Entu's web client sends it, the epoch ms of a local midnight (`epoch.ts`).
 */
export const DATE_FIELD = defineField({
  name: 'date',
  // `YYYY-MM-DD` text, never a Date: that is a moment, and which day it is depends on where it is read.
  scalar: 'date',
  wire: {
    input: Type.Union([Type.String({ maxLength: 10 }), Type.Number({ description: 'Epoch milliseconds of a local midnight, a whole second.' })]),
    output: Type.String({ format: 'date' }),
  },
  storedAs: 'as-is',
  filter: {
    operators: ORDERED_OPERATORS,
    parse: parseDate,
    refused: 'must be a date as YYYY-MM-DD, or the epoch milliseconds of its midnight (a whole second, years 0000–9999)',
  },
  sortKey: (value: string) => value,
  indexed: () => true,
  searchText: (value: string) => value,
});

function checkDate(date: unknown): { date: string } | Refusal {
  if (typeof date === 'number') {
    const day = dateOfEpoch(date);
    return day ? { date: day } : refuse('date', 'as a number must be the epoch milliseconds of a midnight: a whole second within years 0000–9999 (or send YYYY-MM-DD)');
  }
  return typeof date === 'string' && isCalendarDate(date) ? { date } : refuse('date', 'must be a real date as YYYY-MM-DD');
}

/** A real calendar date, `YYYY-MM-DD` (SPEC §3), also given as epoch ms (§7a). */
export const DATE_TYPE = defineValueType({
  type: 'date',
  fields: [DATE_FIELD],
  check: (input) => checkDate(input.date),
  formula: { read: (value) => value.date },
});
