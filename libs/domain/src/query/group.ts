import { isSecretProperty } from '../definitions/system';
import type { FieldError } from '../errors';
import { isAnyPropertyName } from '../names';
import { QUERY_FIELD_DESCRIPTORS, fieldDescriptorOf } from '../values/registry';
import type { FilterField, GroupKey, ListQuery, Scalar, SortKey } from './ast';
import { selectedProperties } from './props';

/**
 * Grouped lists (`group=<property>.<field>[,…]`, SPEC §7a, Entu's `group`): one row per distinct
 * combination of the keys' values among the matches, with how many matches share it (`_count`).
 * The store counts the groups in one aggregation (libs/store/src/group.ts); what a row shows, how
 * rows are ordered and paged is decided here, in the process, over every group.
 */

/** At most this many keys in `group`. */
export const MAX_GROUP_KEYS = 4;
/** A grouped list computes at most this many groups; a query with more is refused (400 naming `group`). */
export const MAX_GROUPS = 10_000;
/** …and reads at most this many bytes of them (group keys are whole value lists: a long text each). */
export const MAX_GROUP_BYTES = 16 * 1024 * 1024;

/** What a reference value carries as its label: shown (and sortable) beside a grouped reference. */
const LABEL: FilterField = 'string';
const FIELDS: ReadonlySet<string> = new Set(QUERY_FIELD_DESCRIPTORS.map((field) => field.name));
const nameOf = (key: { property: string; field: string }) => `${key.property}.${key.field}`;

function problemOf(entry: string, repeated: boolean): string | undefined {
  const [property = '', field, ...rest] = entry.split('.');
  if (!isAnyPropertyName(property) || field === undefined || rest.length > 0) return `"${entry.slice(0, 100)}" is not <property>.<field> (e.g. _type.reference)`;
  if (!FIELDS.has(field)) return `"${field.slice(0, 100)}" is not a value field (${[...FIELDS].join(', ')})`;
  if (isSecretProperty(property)) return `"${property}" is secret: it cannot be grouped by`;
  if (repeated) return `"${entry}" is named twice`;
  return undefined;
}

/**
 * `group=_type.reference,year.number`: 1 to `MAX_GROUP_KEYS` distinct `<property>.<field>` of value
 * fields, no secret property. Whether each property has that field is the schema's question
 * (`checkQueryTypes`). Pushes a problem naming `group` onto `errors` instead of returning keys.
 */
export function parseGroup(text: string, errors: FieldError[]): GroupKey[] | undefined {
  const entries = text.split(',');
  const problem = entries.length > MAX_GROUP_KEYS ? `at most ${MAX_GROUP_KEYS} keys` : entries.map((entry, n) => problemOf(entry, entries.indexOf(entry) !== n)).find((found) => found !== undefined);
  if (problem !== undefined) {
    errors.push({ parameter: 'group', message: problem });
    return undefined;
  }
  return entries.map((entry) => {
    const [property, field] = entry.split('.') as [string, FilterField];
    return { property, field };
  });
}

/** What a grouped list may sort its rows by: its keys, and the label of a grouped reference. */
function sortableKeys(group: readonly GroupKey[]): string[] {
  const names = group.flatMap((key) => (key.field === 'reference' ? [nameOf(key), nameOf({ property: key.property, field: LABEL })] : [nameOf(key)]));
  return [...new Set(names)];
}

/**
 * `sort` of a grouped list: `[-]<property>.<field>` of its keys (or a grouped reference's label,
 * `_type.string` beside `_type.reference`), each once. Anything else names no column of a row: a
 * problem naming `sort`.
 */
export function parseGroupSort(text: string, group: readonly GroupKey[], errors: FieldError[]): SortKey[] {
  const allowed = sortableKeys(group);
  const keys: SortKey[] = [];
  for (const part of text.split(',')) {
    const descending = part.startsWith('-');
    const name = descending ? part.slice(1) : part;
    if (!allowed.includes(name)) {
      errors.push({ parameter: 'sort', message: `"${part.slice(0, 100)}": a grouped list sorts by its keys only (${allowed.join(', ')}, each with - for descending)` });
    } else if (keys.some((key) => nameOf(key) === name)) {
      errors.push({ parameter: 'sort', message: `"${name}" is named twice` });
    } else {
      const [property, field] = name.split('.') as [string, FilterField];
      keys.push({ property, field, direction: descending ? -1 : 1 });
    }
  }
  return keys;
}

/**
 * What a grouped list refuses beside `group`: a cursor (`after`: rows have no position to resume
 * from; they are paged with `skip`), and `props` naming a property that is not grouped (a row shows
 * what its entities share; no engine we run on can pick "the first" entity of a group, see
 * docs/decisions.md, "Grouped counts").
 */
export function groupRefusals(query: Pick<ListQuery, 'group' | 'props'>, cursorGiven: boolean): FieldError[] {
  const grouped = new Set((query.group ?? []).map((key) => key.property));
  const errors: FieldError[] = [];
  if (cursorGiven) errors.push({ parameter: 'after', message: 'a grouped list has no cursor: page its rows with skip' });
  const others = selectedProperties(query.props ?? []).filter((name) => !grouped.has(name));
  if (others.length > 0) errors.push({ parameter: 'props', message: `a grouped row shows its grouped properties only (${[...grouped].join(', ')}), not ${others.slice(0, 5).join(', ')}` });
  return errors;
}

/** The fields of each grouped property the store reads: those grouped by, and a reference's label. */
export interface GroupedProperty {
  property: string;
  fields: FilterField[];
}

export function groupedProperties(group: readonly GroupKey[]): GroupedProperty[] {
  const properties: GroupedProperty[] = [];
  for (const key of group) {
    let entry = properties.find((candidate) => candidate.property === key.property);
    if (!entry) properties.push((entry = { property: key.property, fields: [] }));
    for (const field of key.field === 'reference' ? [key.field, LABEL] : [key.field]) if (!entry.fields.includes(field)) entry.fields.push(field);
  }
  return properties;
}

/** A value as a group shows it: the fields `groupedProperties` reads, those it has. */
export type GroupedValue = Partial<Record<FilterField, Scalar>>;

/**
 * One group as the store counted it: per grouped property (in `groupedProperties` order) its
 * values' fields, in their wire form and stored order; and how many matches share exactly them.
 * The store's groups may be finer than a row (a reference whose label is being refreshed, fields
 * stored in another order): `groupRows` merges them.
 */
export interface FoundGroup {
  values: GroupedValue[][];
  count: number;
}

interface Row {
  key: Scalar[][];
  id: string;
  count: number;
  /** The largest of the found groups merged into the row: its values are what the row shows. */
  shown: FoundGroup;
  shownText: string;
}

/** The values of `field` in `values`, in their order (those without it left out). */
const fieldValues = (values: readonly GroupedValue[] | undefined, field: FilterField): Scalar[] => (values ?? []).flatMap((value) => (value[field] === undefined ? [] : [value[field]!]));

/** A scalar as a list sorts it (`sortKey`: strings without case and accents), else as it is (references, booleans). */
function sortScalar(field: FilterField, value: Scalar): Scalar {
  const sortKey = fieldDescriptorOf(field).sortKey as ((value: Scalar) => Scalar) | undefined;
  return sortKey ? sortKey(value) : value;
}

function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a !== typeof b) return typeof a < typeof b ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Value lists element by element, a prefix (no value at all, first) before what extends it. */
function compareLists(field: FilterField, a: readonly Scalar[], b: readonly Scalar[]): number {
  for (let n = 0; n < Math.min(a.length, b.length); n++) {
    const order = compareScalars(sortScalar(field, a[n]!), sortScalar(field, b[n]!)) || compareScalars(a[n]!, b[n]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/**
 * The page of rows of a grouped list, and how many rows there are: the found groups merged by the
 * keys' values, each row showing its grouped properties' values (`{type, <field>, string?}`) and
 * `_count`. Ordered by `query.sort`, then by the keys ascending in the order given, then by what
 * the row shows: the same groups always come in the same order. Paged by `skip` and `limit`.
 */
export function groupRows(found: readonly FoundGroup[], query: Pick<ListQuery, 'group' | 'sort' | 'skip' | 'limit'>): { rows: Record<string, unknown>[]; count: number } {
  const group = query.group ?? [];
  const properties = groupedProperties(group);
  const at = (property: string) => properties.findIndex((entry) => entry.property === property);
  const rows = new Map<string, Row>();
  for (const one of found) {
    const key = group.map((k) => fieldValues(one.values[at(k.property)], k.field));
    const id = JSON.stringify(key);
    const text = JSON.stringify(one.values);
    const row = rows.get(id);
    if (!row) rows.set(id, { key, id, count: one.count, shown: one, shownText: text });
    else {
      row.count += one.count;
      if (one.count > row.shown.count || (one.count === row.shown.count && text < row.shownText)) Object.assign(row, { shown: one, shownText: text });
    }
  }
  const order = [...query.sort, ...group.map((key): SortKey => ({ ...key, direction: 1 }))];
  const sorted = [...rows.values()].sort((a, b) => {
    for (const key of order) {
      const compared = compareLists(key.field, fieldValues(a.shown.values[at(key.property)], key.field), fieldValues(b.shown.values[at(key.property)], key.field));
      if (compared !== 0) return compared * key.direction;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : a.shownText < b.shownText ? -1 : 1;
  });
  const page = sorted.slice(query.skip, query.skip + query.limit).map((row) => {
    const shown: Record<string, unknown> = {};
    properties.forEach(({ property }, n) => {
      const values = (row.shown.values[n] ?? []).filter((value) => Object.keys(value).length > 0);
      if (values.length > 0) shown[property] = values.map((value) => ({ type: property, ...value }));
    });
    shown._count = row.count;
    return shown;
  });
  return { rows: page, count: rows.size };
}
