import { Type } from '@sinclair/typebox';
import { isCalendarDate } from './date';
import { ORDERED_OPERATORS, defineField, defineValueType, refuse } from './descriptor';
import { datetimeOfEpoch, epochOfText } from './epoch';

const DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** ISO 8601 with an explicit offset, a real calendar date and clock time; `undefined` otherwise. */
export function normaliseDatetime(text: string): string | undefined {
  const match = DATETIME.exec(text);
  if (!match || !isCalendarDate(match[1]!)) return undefined;
  if (Number(match[2]) > 23 || Number(match[3]) > 59 || Number(match[4] ?? 0) > 59) return undefined;
  const time = Date.parse(text);
  if (Number.isNaN(time)) return undefined;
  const utc = new Date(time).toISOString();
  // The offset can carry a moment past year 9999 or before year 0, which ISO strings write as ±YYYYYY.
  return /^\d{4}-/.test(utc) ? utc : undefined;
}

/** A filter's moment: ISO 8601 with an offset, or epoch ms digits. */
function parseDatetime(text: string): string | undefined {
  const ms = epochOfText(text);
  return ms === undefined ? normaliseDatetime(text) : datetimeOfEpoch(ms);
}

/**
 * Normalised to UTC `…Z` text on the wire; stored as a date, so filters compare moments. Not in
 * the attribute index: an equality on a moment is rare, a range the usual question. Also given as
 * epoch ms, as Entu's web client sends it (`epoch.ts`).
 */
export const DATETIME_FIELD = defineField({
  name: 'datetime',
  scalar: 'datetime',
  wire: {
    input: Type.Union([Type.String({ maxLength: 40 }), Type.Number({ description: 'Epoch milliseconds, an integer.' })]),
    output: Type.String({ format: 'date-time' }),
  },
  storedAs: 'date',
  filter: {
    operators: ORDERED_OPERATORS,
    parse: parseDatetime,
    refused: 'must be an ISO 8601 date-time with an offset, or epoch milliseconds (an integer, years 0000–9999)',
  },
  // Normalised UTC ISO text of four-digit years orders like the moments.
  sortKey: (value: string) => value,
});

export const DATETIME_TYPE = defineValueType({
  type: 'datetime',
  fields: [DATETIME_FIELD],
  check: (input) => {
    if (typeof input.datetime === 'number') {
      const instant = datetimeOfEpoch(input.datetime);
      return instant ? { datetime: instant } : refuse('datetime', 'as a number must be epoch milliseconds: an integer within years 0000–9999 (or send ISO 8601)');
    }
    const normalised = typeof input.datetime === 'string' ? normaliseDatetime(input.datetime) : undefined;
    return normalised ? { datetime: normalised } : refuse('datetime', 'must be an ISO 8601 date and time with an offset, e.g. 2024-05-01T12:00:00Z');
  },
  formula: { read: (value) => value.datetime },
});
