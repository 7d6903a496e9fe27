import type { Entity, Properties } from '../entity';
import { ownersCanRead } from '../rights';
import type { FormulaPath, FormulaValue } from './ast';
import { formulaValuesOf } from './evaluate';

/**
 * What a formula of `holder` reads at `path` among `related` — the entities the path leads to (its
 * children, referrers or referenced entities, loaded by the caller in a stable order): the values of
 * `path.property` (their ids for `_id`) of those of the path's type that some owner of the holder
 * may read (`ownersCanRead`). An entity the owners cannot read adds nothing, not even to
 * a `COUNT`: its existence is not revealed either.
 */
export function pathValues(
  holder: Properties,
  path: FormulaPath,
  related: readonly Entity[],
  typeName: (properties: Properties) => string | undefined,
): FormulaValue[] {
  return related
    .filter((other) => (path.type === '*' || typeName(other.properties) === path.type) && ownersCanRead(holder, other.properties))
    .flatMap((other) => (path.property === '_id' ? [other._id] : formulaValuesOf(other.properties[path.property] ?? [])));
}
