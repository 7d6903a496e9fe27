import { first, type Entity, type Properties } from '../entity';
import { MAX_FORMULAS_PER_TYPE } from '../formula/ast';
import { DomainError, type FieldError } from '../errors';
import { parseReferenceQuery } from '../query/parse';
import { parseFormula } from '../formula/parse';
import { PROPERTY_NAME_PATTERN, isPropertyName } from '../names';
import type { OptionSyntax } from '../values/descriptor';
import { DEFINITION_OPTIONS } from '../values/registry';
import { VALUE_TYPES, isValueType, type ValueType } from '../values/types';
import type { PropertyDefinition } from './definition';

const flag = (properties: Properties, name: string) => first(properties, name)?.boolean === true;
const text = (properties: Properties, name: string) => first(properties, name)?.string;

/** Why a definition option's text does not parse in its syntax, or undefined when it does. */
const REFUSED_BY: Record<OptionSyntax, (text: string) => string | undefined> = {
  filters: (query) => {
    try {
      parseReferenceQuery(query);
      return undefined;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return error.errors.map((e) => `${e.parameter}: ${e.message}`).join('; ');
    }
  },
};

/** The options a definition of `type` takes (its descriptor's), with their text, when given. */
function optionsOf(properties: Properties, type: ValueType): Partial<PropertyDefinition> {
  const options: Partial<Record<string, string>> = {};
  for (const { option, types } of DEFINITION_OPTIONS) {
    const given = text(properties, option.name);
    if (given !== undefined && types.includes(type)) options[option.key] = given;
  }
  return options as Partial<PropertyDefinition>;
}

/**
 * The definition a property entity describes (SPEC §5), or undefined when it is not a complete
 * one. Definitions are validated when written (`checkDefinition`), so undefined is only seen for
 * data written around the API.
 */
export function definitionFrom(properties: Properties): PropertyDefinition | undefined {
  const name = text(properties, 'name');
  const type = text(properties, 'type');
  if (name === undefined || !isPropertyName(name) || !isValueType(type)) return undefined;
  const formula = text(properties, 'formula');
  return {
    name,
    type,
    list: flag(properties, 'list'),
    multilingual: flag(properties, 'multilingual'),
    search: flag(properties, 'search'),
    mandatory: flag(properties, 'mandatory'),
    readonly: flag(properties, 'readonly'),
    ...optionsOf(properties, type),
    ...(formula === undefined ? {} : { formula }),
    writeRight: 'editor',
  };
}

/** What makes a property entity a valid definition, checked after each write to one. */
export function checkDefinition(properties: Properties): FieldError[] {
  const errors: FieldError[] = [];
  const name = text(properties, 'name');
  const type = text(properties, 'type');
  if (name === undefined) errors.push({ pointer: '', message: 'a property definition needs a name' });
  else if (!isPropertyName(name)) errors.push({ pointer: '', message: `definition name "${name}" must match ${PROPERTY_NAME_PATTERN}` });
  if (type === undefined) errors.push({ pointer: '', message: 'a property definition needs a type' });
  else if (!isValueType(type)) {
    errors.push({ pointer: '', message: `definition type "${type}" must be one of ${VALUE_TYPES.join(', ')}` });
  }
  // The options only some types take (a reference's reference_query): each on those types only, in its syntax.
  for (const { option, types } of DEFINITION_OPTIONS) {
    const given = text(properties, option.name);
    if (given === undefined) continue;
    if (!types.includes(type as ValueType)) {
      errors.push({ pointer: '', message: `${option.name} is only allowed on ${types.join(', ')} properties` });
      continue;
    }
    const why = REFUSED_BY[option.syntax](given);
    if (why !== undefined) errors.push({ pointer: '', message: `${option.name} does not parse: ${why}` });
  }
  const formula = text(properties, 'formula');
  if (formula !== undefined) {
    try {
      parseFormula(formula);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      errors.push({ pointer: '', message: `formula does not parse: ${error.errors.map((e) => e.message).join('; ')}` });
    }
  }
  return errors;
}

/**
 * What a definition may not share with the other definitions of its type (`siblings`; the
 * definition itself among them is skipped): its name, and a place among at most
 * `MAX_FORMULAS_PER_TYPE` formulas. Only a definition with a formula is refused for the count,
 * so the type's other definitions stay writable whatever it holds.
 */
export function checkSiblings(definition: Entity, siblings: readonly Entity[]): FieldError[] {
  const others = siblings.filter((sibling) => sibling._id !== definition._id);
  const errors: FieldError[] = [];
  const name = text(definition.properties, 'name');
  if (others.some((sibling) => text(sibling.properties, 'name') === name)) errors.push({ pointer: '', message: `the type already defines "${name}"` });
  const formulas = others.filter((sibling) => text(sibling.properties, 'formula') !== undefined).length;
  if (text(definition.properties, 'formula') !== undefined && formulas >= MAX_FORMULAS_PER_TYPE) {
    errors.push({ pointer: '', message: `a type has at most ${MAX_FORMULAS_PER_TYPE} formulas, and this one has ${formulas} already` });
  }
  return errors;
}

/** A type's definitions by name, from its property entities (incomplete ones left out). */
export function definitionMap(entities: readonly { properties: Properties }[]): Map<string, PropertyDefinition> {
  const definitions = new Map<string, PropertyDefinition>();
  for (const entity of entities) {
    const definition = definitionFrom(entity.properties);
    if (definition) definitions.set(definition.name, definition);
  }
  return definitions;
}

/** The properties whose values `q` searches: those defined with `search: true`. */
export function searchableOf(definitions: ReadonlyMap<string, PropertyDefinition>): Set<string> {
  return new Set([...definitions.values()].filter((definition) => definition.search).map((definition) => definition.name));
}
