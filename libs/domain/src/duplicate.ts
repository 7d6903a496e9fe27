import { CREDENTIAL_PROPERTIES } from './credentials';
import type { PropertyDefinition } from './definitions/definition';
import { definitionOf } from './definitions/lookup';
import { COMPUTED_PROPERTIES } from './definitions/system';
import type { Entity } from './entity';
import { invalid, type FieldError } from './errors';
import { typeOf, type MetaTypes } from './references';
import { fieldsOf, type Value } from './values/types';
import type { ValueInput } from './write';

/** At most this many copies in one request: they are inserted together, all or nothing. */
export const MAX_DUPLICATES = 100;

/** What a duplicate request asks for, defaults applied. */
export interface DuplicateRequest {
  count: number;
  /** Properties the copies do not take from the source. */
  ignoredProperties: readonly string[];
}

/**
 * System properties a copy never takes from its source (docs/decisions.md "Duplicate"):
 * `_created` is the copy's own (now, the caller); the rights are not copied (the caller becomes
 * the sole `_owner`, inherited rights are recomputed by the worker); credentials (`_api_key`,
 * `_identity`, `_passkey`) belong to one person entity and are never cloned; the computed ones
 * (`_changed`, `_reference`) are the copy's own, computed when it is written.
 */
export const NOT_COPIED: ReadonlySet<string> = new Set(['_created', '_owner', '_editor', '_expander', '_viewer', ...CREDENTIAL_PROPERTIES, ...COMPUTED_PROPERTIES]);

/**
 * Meta-types whose entities are not duplicated: a copy of a property definition would be a second
 * definition of the same name under the same type (refused by placement anyway), and a copy of a
 * type would be a type without definitions (they are other entities, not copied with it).
 */
const refusedTypes = (meta: MetaTypes) => [meta.entity, meta.property];

/**
 * Checks a duplicate request against its source: the source is not a type or a property definition,
 * every ignored name is a property the source's type knows (a system property or one of its
 * definitions), and `_type` is not among them (a copy has its source's type). Throws `invalid`
 * naming every offending item.
 */
export function checkDuplicate(source: Entity, definitions: ReadonlyMap<string, PropertyDefinition>, meta: MetaTypes, request: DuplicateRequest): void {
  if (!Number.isInteger(request.count) || request.count < 1 || request.count > MAX_DUPLICATES) {
    throw invalid('Nothing was duplicated.', [{ pointer: '/count', message: `must be an integer from 1 to ${MAX_DUPLICATES}` }]);
  }
  const typeId = typeOf(source.properties);
  if (typeId !== undefined && refusedTypes(meta).includes(typeId)) {
    throw invalid('Types and property definitions are not duplicated: create them (a type\'s definitions are entities of their own).');
  }
  const errors: FieldError[] = [];
  request.ignoredProperties.forEach((name, index) => {
    const pointer = `/ignoredProperties/${index}`;
    if (name === '_type') errors.push({ pointer, message: 'a copy always has the _type of its source' });
    else if (definitionOf(name, definitions) === undefined) errors.push({ pointer, message: `unknown property "${name}": the entity's type does not define it` });
  });
  if (errors.length > 0) throw invalid('Some ignored properties were refused; nothing was duplicated.', errors);
}

/** One value of the source, as a create of a copy writes it. */
export interface CopiedValue {
  /** The create item: the value's own fields (a reference without its label), its language. */
  item: ValueInput;
  /** The source value it comes from (a file value's object is copied from it). */
  source: Value;
}

/**
 * The values a copy of `source` is created from, in the source's order: every value of every
 * property its type defines, except the ignored ones, those in `NOT_COPIED`, the formula-computed
 * ones (a create computes them), inherited rights, and values of properties the type no longer
 * defines (a create would refuse them, and they cannot be named in `ignoredProperties`). A value
 * keeps only its data fields: a reference's label, its `_id` and `created` are the copy's own.
 */
export function copiedValues(source: Entity, definitions: ReadonlyMap<string, PropertyDefinition>, ignored: readonly string[]): CopiedValue[] {
  const skipped = new Set(ignored);
  const copied: CopiedValue[] = [];
  for (const [name, values] of Object.entries(source.properties)) {
    const definition = definitionOf(name, definitions);
    if (!definition || skipped.has(name) || NOT_COPIED.has(name) || definition.formula !== undefined || definition.secret) continue;
    const fields = fieldsOf(definition.type);
    for (const value of values) {
      if (value.inherited) continue;
      const item: ValueInput = { type: name };
      for (const field of fields) if (value[field] !== undefined) item[field] = value[field];
      if (value.language !== undefined) item.language = value.language;
      copied.push({ item, source: value });
    }
  }
  return copied;
}

/**
 * The definitions a copy is written under: the type's, with `readonly` lifted. `readonly` keeps
 * clients from writing a value; a copy's values are the source's, already stored, written by the
 * server (everything else — shapes, bounds, `mandatory`, references, rights — applies as to a create).
 */
export function copyDefinitions(definitions: ReadonlyMap<string, PropertyDefinition>): ReadonlyMap<string, PropertyDefinition> {
  return new Map([...definitions].map(([name, definition]) => [name, definition.readonly ? { ...definition, readonly: false } : definition]));
}
