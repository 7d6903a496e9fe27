/**
 * Dates and moments given as epoch milliseconds, as Entu's web client sends them (SPEC §7a): a JSON
 * number in a value, digits in a filter. They are read into the text forms the API stores and
 * returns; docs/decisions.md, "Dates as epoch milliseconds", explains each bound.
 */

/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years the text forms can write as four digits. */
const FIRST_INSTANT = -62_167_219_200_000;
const LAST_INSTANT = 253_402_300_799_999;

const HOUR = 3_600_000;

/**
 * A browser's date picker gives the epoch ms of LOCAL midnight, and the offset is not sent. Read
 * as the UTC date of the moment 13 h later, it is the day picked for every offset from UTC−10:59:59
 * to UTC+13:00 (Hawaii to New Zealand's summer, Tonga and Samoa): a 24-hour window cannot hold both
 * −11:00 and +13:00, and far more people live at +12:45…+13:00 than at −11:00.
 */
const LATEST_OFFSET = 13 * HOUR;

/** An integer as `String(n)` writes it: no sign on zero, no leading zeros, no exponent, no fraction. */
const DIGITS = /^(0|-?[1-9]\d{0,15})$/;

/** The number filter text stands for, when it is written as epoch ms. */
export function epochOfText(text: string): number | undefined {
  return DIGITS.test(text) ? Number(text) : undefined;
}

/** `…Z` text of an integer number of ms within years 0000–9999; undefined otherwise (fractions, NaN, ±Infinity, beyond). */
export function datetimeOfEpoch(ms: number): string | undefined {
  return Number.isInteger(ms) && ms >= FIRST_INSTANT && ms <= LAST_INSTANT ? new Date(ms).toISOString() : undefined;
}

/**
 * The `YYYY-MM-DD` a local midnight given as epoch ms stands for. It must be a whole second: every
 * offset the time zone database knows is, including the local mean times browsers apply to old
 * dates (Tallinn before 1921 is UTC+1:39, New York before 1883 UTC−4:56:02), so no quarter-hour
 * rule; a moment such as `Date.now()` is refused 999 times in 1000 rather than cut to a day.
 */
export function dateOfEpoch(ms: number): string | undefined {
  if (!Number.isInteger(ms) || ms % 1000 !== 0) return undefined;
  return datetimeOfEpoch(ms + LATEST_OFFSET)?.slice(0, 10);
}
