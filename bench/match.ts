import type { Document } from 'mongodb';

/**
 * A small client-side evaluator of the filters `compileFilter` and `compileAfter` produce (`$and`,
 * `$or`, `$eq`, `$ne`, `$gt`… `$lte`, `$in`, `$all`, `$exists`, `$regex`/`$options`, `$elemMatch`,
 * `$not`), with MongoDB's path and array rules (a field inside an array of objects yields every
 * element's value; an array value matches when any element does; comparisons only between values
 * of the same BSON type; equality with null matches a missing field too, so `$ne: null` does not).
 *
 * Used for the index analysis only: on FerretDB every `countDocuments` is a full scan, so counting
 * the documents inside each candidate index's bounds with the server would cost one scan per
 * predicate. Instead one projected scan is fetched and counted here; each query's full filter is
 * cross-checked against the server's own count.
 */

type Key = readonly [kind: string, value: string | number];

function isObjectId(value: unknown): value is { toHexString(): string } {
  return typeof value === 'object' && value !== null && (value as { _bsontype?: string })._bsontype === 'ObjectId';
}

function keyOf(value: unknown): Key | undefined {
  if (isObjectId(value)) return ['oid', value.toHexString()];
  if (value instanceof Date) return ['date', value.getTime()];
  if (typeof value === 'number') return ['number', value];
  if (typeof value === 'string') return ['string', value];
  if (typeof value === 'boolean') return ['bool', value ? 1 : 0];
  if (value === null) return ['null', 0];
  return undefined;
}

const plainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && !isObjectId(value);

/** Every value at a dotted path (arrays traversed, a leaf array contributes itself and its elements). */
export function valuesAt(document: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  const walk = (value: unknown, parts: string[]) => {
    if (parts.length === 0) {
      out.push(value);
      if (Array.isArray(value)) out.push(...value);
      return;
    }
    if (Array.isArray(value)) {
      for (const element of value) if (plainObject(element)) walk(element, parts);
      return;
    }
    if (plainObject(value) && value[parts[0]!] !== undefined) walk(value[parts[0]!], parts.slice(1));
  };
  walk(document, path.split('.'));
  return out;
}

function equal(a: unknown, b: unknown): boolean {
  const [ka, kb] = [keyOf(a), keyOf(b)];
  return ka !== undefined && kb !== undefined && ka[0] === kb[0] && ka[1] === kb[1];
}

function compare(a: unknown, b: unknown, op: string): boolean {
  const [ka, kb] = [keyOf(a), keyOf(b)];
  if (!ka || !kb || ka[0] !== kb[0]) return false;
  const [x, y] = [ka[1], kb[1]];
  switch (op) {
    case '$gt':
      return x > y;
    case '$gte':
      return x >= y;
    case '$lt':
      return x < y;
    default:
      return x <= y;
  }
}

function holds(document: unknown, path: string, spec: unknown): boolean {
  const operators = plainObject(spec) && Object.keys(spec).length > 0 && Object.keys(spec).every((k) => k.startsWith('$')) ? spec : { $eq: spec };
  const values = valuesAt(document, path);
  const equals = (operand: unknown) => (operand === null && values.length === 0) || values.some((v) => equal(v, operand));
  return Object.entries(operators).every(([op, operand]) => {
    switch (op) {
      case '$eq':
        return equals(operand);
      case '$ne':
        return !equals(operand);
      case '$not':
        return !holds(document, path, operand);
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        return values.some((v) => compare(v, operand, op));
      case '$in':
        return values.some((v) => (operand as unknown[]).some((o) => equal(v, o)));
      case '$all':
        return (operand as unknown[]).every((o) => values.some((v) => equal(v, o)));
      case '$exists':
        return (values.length > 0) === Boolean(operand);
      case '$regex': {
        const pattern = new RegExp(String(operand), String((operators as Document).$options ?? '').replace(/[^imsu]/g, ''));
        return values.some((v) => typeof v === 'string' && pattern.test(v));
      }
      case '$options':
        return true;
      case '$elemMatch': {
        const [array] = valuesAt(document, path);
        return Array.isArray(array) && array.some((element) => matches(element, operand as Document));
      }
      default:
        throw new Error(`the benchmark's matcher does not know ${op}`);
    }
  });
}

export function matches(document: unknown, filter: Document): boolean {
  return Object.entries(filter).every(([key, spec]) => {
    if (key === '$and') return (spec as Document[]).every((part) => matches(document, part));
    if (key === '$or') return (spec as Document[]).some((part) => matches(document, part));
    return holds(document, key, spec);
  });
}

/** The top-level fields a filter reads (to project the one scan down to them). */
export function fieldsOf(filter: Document, into = new Set<string>()): Set<string> {
  for (const [key, spec] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') for (const part of spec as Document[]) fieldsOf(part, into);
    else if (!key.startsWith('$')) into.add(key.split('.')[0]!);
  }
  return into;
}
