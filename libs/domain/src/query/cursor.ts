import { invalid } from '../errors';
import { isObjectId } from '../names';
import type { SortKeys } from '../search/derive';
import { fieldDescriptorOf } from '../values/registry';
import type { CursorPosition, CursorValue, FilterField, SortKey } from './ast';

export type { CursorPosition, CursorValue } from './ast';

/**
 * Cursor paging of GET /api/{db}/entity (`after`; docs/decisions.md "Cursor paging and
 * count modes"). A cursor names a position in a sort order: the sort keys of the last entity of a
 * page (as `__sort` holds them: the smallest value ascending, the largest descending; `null` when
 * the entity has none) and its `_id`, the tie-break. To clients it is opaque: base64url of
 * `{"s": <sort>, "k": [<values>], "i": <id>}`, where `s` is the sort it was made for as written
 * (`title.string,-pages.number`, `""` for the default order). It is not signed: all it can change is
 * where the caller's own matches start, which `skip` can do as well; the visibility filter applies
 * to every page.
 */

/**
 * The longest cursor accepted. It must hold the longest a page can produce: eight sort keys, each a
 * string key of 256 characters folded (`sortable`: NFKD can turn one character into eighteen), which
 * is about 90 000 characters of base64url. A cursor over this is refused, never parsed.
 */
export const MAX_CURSOR_LENGTH = 96 * 1024;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const KEYS = ['i', 'k', 's'];

/** A sort as written in `sort=` (`-` for descending), the form a cursor names it by. */
export function sortSpec(sort: readonly SortKey[]): string {
  return sort.map((key) => `${key.direction === -1 ? '-' : ''}${key.property}.${key.field}`).join(',');
}

/** Which end of a property's values a sort key reads: the smallest ascending, the largest descending. */
export const sortEnd = (key: SortKey): 'min' | 'max' => (key.direction === 1 ? 'min' : 'max');

/** The position of an entity whose sort keys (`__sort`) are `keys`, in the order of `sort`. */
export function positionOf(keys: SortKeys | undefined, sort: readonly SortKey[], id: string): CursorPosition {
  const values = sort.map((key): CursorValue => {
    const fields = keys && Object.hasOwn(keys, key.property) ? keys[key.property] : undefined;
    const ends = fields && Object.hasOwn(fields, key.field) ? fields[key.field] : undefined;
    const value: unknown = ends?.[sortEnd(key)];
    return typeof value === 'string' || typeof value === 'number' ? value : null;
  });
  return { values, id };
}

/** The cursor of `position` in `sort`. */
export function encodeCursor(sort: readonly SortKey[], position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ s: sortSpec(sort), k: position.values, i: position.id }), 'utf8').toString('base64url');
}

/**
 * Whether `value` can be a sort key of `field`: a finite number for numeric fields (booleans sort
 * as 0 and 1), else the text its filter reads back unchanged.
 */
function isSortValue(field: FilterField, value: unknown): boolean {
  if (value === null) return true;
  const descriptor = fieldDescriptorOf(field);
  const numeric = ['number', 'integer', 'boolean'].includes(String(descriptor.wire.output.type));
  if (numeric) return typeof value === 'number' && Number.isFinite(value);
  return typeof value === 'string' && descriptor.filter.parse(value) === value;
}

/** The JSON inside a cursor, or undefined when it is not the base64url of a JSON object. */
function parsed(text: string): Record<string, unknown> | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // Node skips what is not base64url; only a cursor that re-encodes to itself is one we could have made.
  if (bytes.toString('base64url') !== text) return undefined;
  const json = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    const value: unknown = JSON.parse(json.decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The position `after` names, for a query sorted by `sort`. Strict: anything but a cursor this
 * service makes for that sort (malformed, too long, other keys, values of the wrong type, objects
 * such as `{"$gt": 1}` where a value belongs, another sort) is a 400 naming `after`.
 */
export function decodeCursor(text: string, sort: readonly SortKey[]): CursorPosition {
  const refuse = (message: string) => invalid('The cursor is invalid.', [{ parameter: 'after', message }]);
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH) throw refuse(`must be a cursor of 1 to ${MAX_CURSOR_LENGTH} characters, as a previous page's next gave it`);
  const cursor = parsed(text);
  if (!cursor) throw refuse('is not a cursor: use the next of a previous page as it is');
  const keys = Object.keys(cursor).sort();
  if (keys.length !== KEYS.length || !keys.every((key, i) => key === KEYS[i])) throw refuse('is not a cursor: use the next of a previous page as it is');
  const { s, k, i } = cursor;
  if (typeof s !== 'string' || !Array.isArray(k) || typeof i !== 'string' || !isObjectId(i)) throw refuse('is not a cursor: use the next of a previous page as it is');
  if (s !== sortSpec(sort)) throw refuse(`was made for another sort (${JSON.stringify(s)}): page with the sort it was made for, or start again`);
  if (k.length !== sort.length || !sort.every((key, n) => isSortValue(key.field, k[n]))) throw refuse('holds values that are not sort keys of its sort');
  return { values: k as CursorValue[], id: i };
}
