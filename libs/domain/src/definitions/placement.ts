import { referencesOf, type Entity, type Properties } from '../entity';
import { invalid } from '../errors';
import { typeOf, type MetaTypes } from '../references';
import { checkDefinition, checkSiblings } from './from-entity';

const INVALID = 'The property definition is invalid; nothing was written.';

/**
 * The type a property definition belongs to, its one `_parent`, once its own fields are valid
 * (`checkDefinition`). Throws `invalid` with every problem found.
 */
export function definitionParent(definition: Entity): string {
  const errors = checkDefinition(definition.properties);
  const parents = referencesOf(definition.properties, '_parent');
  if (parents.length !== 1) errors.push({ pointer: '', message: 'a property definition needs exactly one _parent: the type it belongs to' });
  if (errors.length > 0) throw invalid(INVALID, errors);
  return parents[0]!;
}

/**
 * Where a definition may sit: under a type (`parent`, undefined when there is no such entity), and
 * sharing neither its name nor the last formula place with the type's other definitions
 * (`siblings`, read fresh under the database's definitions lease so that two written at once
 * cannot both pass).
 */
export function checkPlacement(definition: Entity, parent: Properties | undefined, siblings: readonly Entity[], meta: MetaTypes): void {
  if (parent === undefined || typeOf(parent) !== meta.entity) throw invalid(INVALID, [{ pointer: '', message: 'its _parent must be a type' }]);
  const clashes = checkSiblings(definition, siblings);
  if (clashes.length > 0) throw invalid(INVALID, clashes);
}
