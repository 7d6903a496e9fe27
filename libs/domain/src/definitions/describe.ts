import { first, type Entity } from '../entity';
import { labelOf } from '../derived/labels';
import { canRead, type Caller } from '../rights';
import type { DatabaseSchema, PropertyDescription, TypeDescription } from '../wire/schema';
import { DEFINITION_OPTIONS, descriptorOf, inputOf, type ValueType } from '../values/registry';
import { definitionFrom } from './from-entity';
import type { PropertyDefinition } from './definition';
import { isSystemProperty } from './system';

/**
 * A definition entity as `GET /api/{db}/schema` describes it, or undefined when it is not a
 * complete definition (`definitionFrom`) or names a system property. Flags are always present
 * (false when unset); `formula` and the type's options (`reference_query`) only when the
 * definition has one. `fields` and `input` say what its value type's descriptor says a front
 * reads and writes, so a client that does not know the type still sends and reads its values.
 */
export function describeDefinition(entity: Entity): PropertyDescription | undefined {
  const definition = definitionFrom(entity.properties);
  // definitionFrom already refuses names outside the user pattern; kept explicit, as the answer promises it.
  if (definition === undefined || isSystemProperty(definition.name)) return undefined;
  return {
    _id: entity._id,
    name: definition.name,
    type: definition.type,
    list: definition.list,
    multilingual: definition.multilingual,
    search: definition.search,
    mandatory: definition.mandatory,
    readonly: definition.readonly,
    ...(definition.formula === undefined ? {} : { formula: definition.formula }),
    ...optionsOf(definition),
    fields: valueFieldsOf(definition.type),
    input: inputOf(definition.type),
  };
}

/** The fields a value of `type` holds, each with the scalar a front shows it as. */
function valueFieldsOf(type: ValueType): PropertyDescription['fields'] {
  return descriptorOf(type).fields.map((field) => ({ name: field.name, scalar: field.scalar }));
}

/** The definition's options (`reference_query`), by their wire names, each only when it has one. */
function optionsOf(definition: PropertyDefinition): Partial<PropertyDescription> {
  return Object.fromEntries(DEFINITION_OPTIONS.flatMap(({ option }) => (definition[option.key] === undefined ? [] : [[option.name, definition[option.key]]])));
}

/** A definition's `ordinal`, when it has a finite one. */
function ordinalOf(entity: Entity): number | undefined {
  const ordinal = first(entity.properties, 'ordinal')?.number;
  return typeof ordinal === 'number' && Number.isFinite(ordinal) ? ordinal : undefined;
}

/** Code-unit order: the same on every machine and locale. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Ascending; without an ordinal after every one with one. */
const compareOrdinal = (a: number | undefined, b: number | undefined) => (a === b ? 0 : a === undefined ? 1 : b === undefined ? -1 : a - b);

/**
 * The types and definitions of a database as the caller sees them: only the type
 * entities the caller may read (`canRead`, the rule of reading the entity itself; anonymous callers
 * see `public` ones), the meta-types among them; of each, only the definitions the caller may read,
 * complete and not a system property. Types without a `name` are left out (nothing can name them).
 * Types by name, then `_id`; properties by `ordinal` (those without one last), then name, then `_id`.
 */
export function describeSchema(types: readonly Entity[], definitionsOf: (typeId: string) => readonly Entity[], caller: Caller): DatabaseSchema {
  const described: TypeDescription[] = [];
  for (const type of types) {
    const name = labelOf(type.properties);
    if (name === undefined || !canRead(type.properties, caller)) continue;
    const properties = definitionsOf(type._id)
      .filter((entity) => canRead(entity.properties, caller))
      .flatMap((entity) => {
        const description = describeDefinition(entity);
        return description === undefined ? [] : [{ description, ordinal: ordinalOf(entity) }];
      })
      .sort(
        (a, b) =>
          compareOrdinal(a.ordinal, b.ordinal) ||
          compareText(a.description.name, b.description.name) ||
          compareText(a.description._id, b.description._id),
      )
      .map(({ description }) => description);
    described.push({ _id: type._id, name, properties });
  }
  return { types: described.sort((a, b) => compareText(a.name, b.name) || compareText(a._id, b._id)) };
}
