import type { PropertyDefinition } from './definition';
import { SYSTEM_DEFINITIONS } from './system';

/** The definition governing `name`: a system property's built-in one, else the type's own. */
export function definitionOf(name: string, definitions: ReadonlyMap<string, PropertyDefinition>): PropertyDefinition | undefined {
  return SYSTEM_DEFINITIONS.get(name) ?? definitions.get(name);
}
