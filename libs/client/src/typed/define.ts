import type { Sharing } from './shape';
import type { PropertyDescription, ValueType } from '../types';
import { InputError } from './values';

/** A property definition as `defineType` takes it: its data type, and the flags that differ from false. */
export interface DefinitionInput {
  type: ValueType;
  list?: boolean;
  multilingual?: boolean;
  search?: boolean;
  mandatory?: boolean;
  readonly?: boolean;
  /** Makes the property computed (SPEC §9). */
  formula?: string;
  /** Which entities a reference may point to, in the list's filter syntax. */
  reference_query?: string;
}

const FLAGS = ['list', 'multilingual', 'search', 'mandatory', 'readonly'] as const;

/**
 * The objects `defineType` creates as entities of the meta-type `property`, one per definition
 * (their `_parent`, the new type, added then): `{title: 'string'}` is `{name: 'title', type:
 * 'string'}`; flags only when true. Checked before anything is created.
 */
export function definitionObjects(properties: Record<string, ValueType | DefinitionInput>, sharing: Sharing): Record<string, unknown>[] {
  return Object.keys(properties).map((name) => {
    const given = properties[name];
    const definition: DefinitionInput = typeof given === 'string' ? { type: given } : (given as DefinitionInput);
    if (definition === null || typeof definition !== 'object' || typeof definition.type !== 'string') throw new InputError(`"${name}": give a data type, or {type, …}`);
    const object: Record<string, unknown> = { name, type: definition.type, _sharing: sharing };
    for (const flag of FLAGS) if (definition[flag]) object[flag] = true;
    if (definition.formula !== undefined) object.formula = definition.formula;
    if (definition.reference_query !== undefined) object.reference_query = definition.reference_query;
    return object;
  });
}

/**
 * How an existing definition differs from a declared one (`definitionObjects`' form): one line per
 * setting, empty when they agree. `defineType` adds what is missing but never changes a definition
 * that exists: a changed data type or flag affects stored values, so it is the caller's to make.
 */
export function definitionDifferences(declared: Record<string, unknown>, existing: PropertyDescription): string[] {
  const differences: string[] = [];
  if (declared.type !== existing.type) differences.push(`type is ${existing.type}, declared ${String(declared.type)}`);
  for (const flag of FLAGS) {
    const wanted = declared[flag] === true;
    if (existing[flag] !== wanted) differences.push(`${flag} is ${existing[flag]}, declared ${wanted}`);
  }
  for (const setting of ['formula', 'reference_query'] as const) {
    if (declared[setting] !== existing[setting]) differences.push(`${setting} is ${JSON.stringify(existing[setting] ?? null)}, declared ${JSON.stringify(declared[setting] ?? null)}`);
  }
  return differences;
}

/** `defineType` found the type with definitions that differ from the declared ones; it changed nothing. */
export class DefinitionMismatchError extends InputError {
  constructor(
    readonly typeName: string,
    readonly differences: Record<string, string[]>,
  ) {
    super(
      `type "${typeName}" exists with other definitions: ${Object.entries(differences)
        .map(([name, lines]) => `${name}: ${lines.join(', ')}`)
        .join('; ')}. Nothing was changed: change the definitions themselves, or declare them as they are.`,
    );
  }
}
