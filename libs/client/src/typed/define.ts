import type { Sharing } from './shape';
import type { ValueType } from '../types';
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
