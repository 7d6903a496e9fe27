import type { Entity } from './entity';
import { readAccess } from './rights';
import { attributeValues } from './search/attribute-values';
import { searchIndex, sortKeys, type SortKeys } from './search/derive';

/** What the store keeps beside an entity's values so that reads, `q`, sorts and filters are served by indexes. */
export interface EntityIndex {
  /** Who may read it: person ids, `domain`, `public` (every read filters on it). */
  read: string[];
  /** Word prefixes of its searchable values (`q`). */
  search: string[];
  /** Per property and field its smallest and largest value (engine-independent sorting). */
  sort: SortKeys;
  /** One entry per property, field and value of the equality-indexed fields (`eq`/`in`). */
  attributes: string[];
}

/** The entity as stored: its values and the index entries derived from them. The store only encodes it. */
export interface StoredEntity {
  entity: Entity;
  index: EntityIndex;
}

/**
 * The index entries of `entity`; `searchable` names the properties whose definitions have
 * `search: true`. Derived from the values alone, so they can never disagree with them.
 */
export function indexOf(entity: Entity, searchable: ReadonlySet<string>): EntityIndex {
  const { properties } = entity;
  return { read: readAccess(properties), search: searchIndex(properties, searchable), sort: sortKeys(properties), attributes: attributeValues(properties) };
}

/** `entity` with its index: for entities built outside `materialise` (a new database's bootstrap). */
export const indexed = (entity: Entity, searchable: ReadonlySet<string>): StoredEntity => ({ entity, index: indexOf(entity, searchable) });
