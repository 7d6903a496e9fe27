import { boundedCache } from '../caches';
import type { Properties } from '../entity';
import type { StorageForm } from '../values/descriptor';
import { fieldDescriptorOf } from '../values/registry';
import type { FieldFilter, Filter, FilterOf } from './ast';
import type { Operator } from './operators';
import { conditionOf } from './cumulative';

/**
 * The list filters evaluated in memory (the change feed asks whether an entity matches a query
 * without asking the database). Each filter must hold exactly when the store's MongoDB condition
 * (`libs/store/src/compile.ts`) holds on the entity's document, so this mirrors how that engine
 * reads `{ "<property>.<field>": … }` on an array of value subdocuments:
 * - ANY value: a condition holds when some value's field satisfies it (`ne`: some value is
 *   greater or smaller, which is how the compiler writes it);
 * - no comparison across BSON types: a number never equals, exceeds or precedes a string;
 * - a field compares in its stored form (`storedAs`, as the codec keeps it): a datetime as an
 *   instant, a reference as an ObjectId, everything else as its JSON scalar;
 * - `exists` asks whether some value has the field at all (`_id`: whether the property has any
 *   value); `regex` tests strings only, read as MongoDB's PCRE reads the pattern (`compileRegex`),
 *   not as JavaScript would;
 * - a filter on a right list reads the levels `conditionOf` names (the list as shown, cumulative),
 *   as the compiler does.
 * Where MongoDB and FerretDB (the local stack) differ, this follows MongoDB: `$` also matches
 * before a final `\n`, `\s` takes a vertical tab. Still read as JavaScript reads them, being rare
 * in a filter: `\A`, `\z`, `\Z`, `\Q…\E`, `\x{…}`, `[[:alpha:]]`, `\S` inside a class, `]` first
 * in a class, `^` with `m` after a final `\n`. (`\u…`, which both engines refuse and JavaScript
 * reads, is refused by the parser.)
 */

/** A scalar as the engine compares it: its BSON type (only equal types compare) and its key. */
interface Stored {
  type: 'string' | 'number' | 'boolean' | 'date' | 'objectId';
  key: string | number | boolean;
}

/** The stored form of a value's field or a filter's operand; undefined: nothing a filter compares with. */
function storedForm(form: StorageForm, scalar: unknown): Stored | undefined {
  switch (form) {
    case 'date':
      return typeof scalar === 'string' ? { type: 'date', key: Date.parse(scalar) } : undefined;
    case 'object-id':
      // An ObjectId's bytes order like its hex text in one case.
      return typeof scalar === 'string' ? { type: 'objectId', key: scalar.toLowerCase() } : undefined;
    case 'as-is':
      return typeof scalar === 'string' || typeof scalar === 'number' || typeof scalar === 'boolean' ? { type: typeof scalar as Stored['type'], key: scalar } : undefined;
  }
}

/**
 * A UTF-16 code unit ranked by the code point order it stands for. UTF-16 unit order differs from
 * code point order (and so from the UTF-8 byte order MongoDB compares strings by) only where a
 * surrogate (U+D800–DFFF, half of a code point above U+FFFF) meets a unit of U+E000–FFFF: the
 * surrogate must rank above it. Moving the two ranges past each other fixes exactly that.
 */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

/** Strings by UTF-8 byte order (MongoDB's binary comparison), which is code point order. */
function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const [x, y] = [a.charCodeAt(i), b.charCodeAt(i)];
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** How `a` orders against `b`, or undefined when their types do not compare (or a date is invalid). */
function compare(a: Stored, b: Stored): number | undefined {
  if (a.type !== b.type) return undefined;
  if (typeof a.key === 'string') return compareStrings(a.key, b.key as string);
  if (typeof a.key === 'boolean') return Number(a.key) - Number(b.key);
  const difference = a.key - (b.key as number);
  return Number.isNaN(difference) ? undefined : difference;
}

/** Which orders of a value against the operand a comparison accepts. */
const ORDERS = {
  eq: (order: number) => order === 0,
  ne: (order: number) => order !== 0,
  gt: (order: number) => order > 0,
  gte: (order: number) => order >= 0,
  lt: (order: number) => order < 0,
  lte: (order: number) => order <= 0,
};

/** PCRE's `\s` (without Unicode properties): ASCII spaces only, where JavaScript's adds Unicode's. */
const SPACES = '\\t\\n\\x0B\\f\\r ';

/**
 * What a character outside a class means to MongoDB's PCRE, in JavaScript: a line ends at `\n`
 * only (JavaScript also ends one at `\r`, U+2028 and U+2029), `$` without `m` also matches before
 * a final `\n`, and `\s` is ASCII. Flag `m` is read here, so the RegExp runs without it.
 */
function outsideClass(token: string, flags: string): string {
  const multiline = flags.includes('m');
  switch (token) {
    case '.':
      return flags.includes('s') ? '.' : '[^\\n]';
    case '^':
      return multiline ? '(?:^|(?<=\\n))' : '^';
    case '$':
      return multiline ? '(?:$|(?=\\n))' : '(?:$|(?=\\n$))';
    case '\\s':
      return `[${SPACES}]`;
    case '\\S':
      return `[^${SPACES}]`;
    default:
      return token;
  }
}

/**
 * The pattern rewritten so JavaScript reads it as PCRE does (see `outsideClass`); inside a class
 * `\s` is spelled out too (a `-` after it stays a character, as PCRE reads it), while `\S` there
 * keeps JavaScript's meaning: a class cannot subtract.
 */
function engineSource(pattern: string, flags: string): string {
  let source = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    // An escape is one token with the character it escapes (the parser refused a trailing `\`).
    const token = pattern[i] === '\\' ? pattern.slice(i, ++i + 1) : pattern[i]!;
    if (!inClass) {
      inClass = token === '[';
      source += outsideClass(token, flags);
    } else if (token === '\\s') {
      source += SPACES + (pattern[i + 1] === '-' ? '\\' : '');
    } else {
      inClass = token !== ']';
      source += token;
    }
  }
  return source;
}

/** A RegExp of `source`, or undefined where JavaScript cannot read it so. */
function regExp(source: string, flags: string): RegExp | undefined {
  try {
    return new RegExp(source, flags);
  } catch {
    return undefined;
  }
}

/** Matches nothing: what a pattern the engines refuse (`[a-\s]`, a range up to a class) selects. */
const NOTHING = /(?!)/;

/**
 * The filter's pattern as a RegExp matching what MongoDB matches. Both engines read the pattern
 * and the strings as UTF-8 (the compiler leaves `u` out of `$options`: it has nothing to add), so
 * `.` or `[^a]` take a whole code point: JavaScript does that with `u`. A pattern only valid
 * without it (`\-` outside a class, a lone `{`) runs without it, as the parser accepted it.
 */
function compileRegex(pattern: string, flags: string): RegExp {
  const source = engineSource(pattern, flags);
  const options = flags.replace(/[mu]/g, '');
  return regExp(source, `${options}u`) ?? regExp(source, options) ?? NOTHING;
}

/** Compiled patterns by flags and pattern: a feed tests the same few filters on every change. */
// Exported for the test of its bound (libs/domain/test/caches.test.ts); not part of the package's API.
export const REGEXES = boundedCache<string, RegExp>('regexes');

function regexOf(pattern: string, flags: string): RegExp {
  const key = `${flags}/${pattern}`;
  let regex = REGEXES.get(key);
  if (!regex) {
    regex = compileRegex(pattern, flags);
    REGEXES.set(key, regex);
  }
  return regex;
}


/** The raw `field` of each value of the filter's property; none when the entity lacks it. */
function fieldsOf(filter: Filter, properties: Properties): unknown[] {
  // An own property only: names come from users, and `constructor` must not find Object's.
  const values = Object.prototype.hasOwnProperty.call(properties, filter.property) ? properties[filter.property]! : [];
  return values.map((value) => (value as Readonly<Record<string, unknown>>)[filter.field]);
}

/** Whether some value's field satisfies `test` in its stored form. */
function anyStored(filter: FieldFilter, properties: Properties, test: (stored: Stored) => boolean): boolean {
  const form = fieldDescriptorOf(filter.field).storedAs;
  return fieldsOf(filter, properties).some((field) => {
    const stored = storedForm(form, field);
    return stored !== undefined && test(stored);
  });
}

/** Whether some value's field, compared with each operand, gives an order `holds` accepts. */
function anyOrdered(filter: FieldFilter, properties: Properties, operands: readonly unknown[], holds: (order: number) => boolean): boolean {
  const form = fieldDescriptorOf(filter.field).storedAs;
  const wanted = operands.map((operand) => storedForm(form, operand)).filter((stored) => stored !== undefined);
  return anyStored(filter, properties, (stored) =>
    wanted.some((operand) => {
      const order = compare(stored, operand);
      return order !== undefined && holds(order);
    }),
  );
}

const ordered =
  (orders: (order: number) => boolean) =>
  (filter: FieldFilter<'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'>, properties: Properties): boolean =>
    anyOrdered(filter, properties, [filter.value], orders);

/** How each operator's filter is evaluated on one property's values (no right list rewritten). */
const HOLDS: { readonly [O in Operator]: (filter: FilterOf<O>, properties: Properties) => boolean } = {
  eq: ordered(ORDERS.eq),
  ne: ordered(ORDERS.ne),
  gt: ordered(ORDERS.gt),
  gte: ordered(ORDERS.gte),
  lt: ordered(ORDERS.lt),
  lte: ordered(ORDERS.lte),
  in: (filter, properties) => anyOrdered(filter, properties, filter.values, ORDERS.eq),
  exists: (filter, properties) => fieldsOf(filter, properties).some((field) => field !== undefined) === filter.value,
  regex: (filter, properties) => {
    const regex = regexOf(filter.pattern, filter.flags);
    return anyStored(filter, properties, (stored) => stored.type === 'string' && regex.test(stored.key as string));
  },
};

/** Whether one filter holds for one property's values (no right list rewritten). */
function holds(filter: Filter, properties: Properties): boolean {
  // The filter is the one its operator's entry takes (`FilterOf`): the table's type holds them together.
  return (HOLDS[filter.op] as (filter: Filter, properties: Properties) => boolean)(filter, properties);
}

/** Whether one filter holds for an entity's properties, exactly as the store's query would. */
export function matchesFilter(filter: Filter, properties: Properties): boolean {
  const condition = conditionOf(filter);
  return 'all' in condition ? condition.all.every((one) => holds(one, properties)) : condition.any.some((one) => holds(one, properties));
}

/** Whether every filter holds (an AND, as the store's `$and`); no filters: every entity matches. */
export function matchesFilters(filters: readonly Filter[], properties: Properties): boolean {
  return filters.every((filter) => matchesFilter(filter, properties));
}
