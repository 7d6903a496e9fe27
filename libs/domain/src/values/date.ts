import { Type } from '@sinclair/typebox';
import { ORDERED_OPERATORS, defineField, defineValueType, refuse } from './descriptor';

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

/** Kept as its `YYYY-MM-DD` text, which orders and compares like the dates themselves. */
export const DATE_FIELD = defineField({
  name: 'date',
  wire: { input: Type.String({ maxLength: 10 }), output: Type.String({ format: 'date' }) },
  storedAs: 'as-is',
  filter: {
    operators: ORDERED_OPERATORS,
    parse: (text: string) => (isCalendarDate(text) ? text : undefined),
    refused: 'must be a date as YYYY-MM-DD',
  },
  sortKey: (value: string) => value,
  indexed: () => true,
  searchText: (value: string) => value,
});

/** A real calendar date, `YYYY-MM-DD` (SPEC §3). */
export const DATE_TYPE = defineValueType({
  type: 'date',
  fields: [DATE_FIELD],
  check: (input) =>
    typeof input.date !== 'string' || !isCalendarDate(input.date) ? refuse('date', 'must be a real date as YYYY-MM-DD') : { date: input.date },
  formula: { read: (value) => value.date },
});
