import type { CompiledType } from './definitions/compiled';
import { isFileValue, referencesOf, type Entity, type Properties } from './entity';
import type { FormulaPath, FormulaValue } from './formula/ast';
import { computeFormulas } from './formula/apply';
import { describeChange, type EntityChanged } from './derived/describe';
import { inheritRights } from './derived/inherit';
import { withChanged, withReferences } from './derived/computed';
import { dropReferencesTo, labelReferences } from './derived/labels';
import { needsSettling, type SchemaView } from './derived/settling';
import { typeOf, type MetaTypes } from './references';
import { indexed, type StoredEntity } from './stored';
import type { Value } from './values/types';

/** What an entity reads in other entities beyond its references' targets: a refresh loads them. */
export interface EntityReads {
  /** The values at a formula path, as `holder` (the entity, its rights settled) may copy them. */
  resolve(holder: Properties, path: FormulaPath): readonly FormulaValue[];
}

export interface MaterialiseInput {
  /** The entity's own values: as a write left them, or as stored (a refresh). */
  entity: Entity;
  /** Its type's definitions, compiled (from the schema cache). */
  type: CompiledType;
  /** The entities it references, by id: what its labels (and, on a refresh, inherited rights) come from. */
  targets: ReadonlyMap<string, Properties>;
  /** Who and when, for the values computed here. */
  stamp: { at: string; by: string };
  newId(): string;
  /**
   * A refresh (the worker's, or /aggregate) passes what the entity reads elsewhere: references to
   * entities missing from `targets` are dropped, rights inherited from its parents, every formula
   * computed. A write, in its own request, passes none: it labels what it references and computes
   * the formulas that read the entity alone (SPEC §9); the rest is left to the worker.
   */
  reads?: EntityReads;
}

/** The entity as it is stored, with its index entries: all the store needs to write it. */
export interface Materialised extends StoredEntity {
  /** The computed values that changed. */
  computed: Value[];
}

/**
 * The entity as it is stored, from its own values, its schema and the entities it reads: its
 * references labelled, its rights inherited (on a refresh), its formulas computed, its computed
 * system properties (`_reference`, `_changed`) brought up to date, then its index
 * entries (access list, search tokens, sort keys, attribute values). Rights first:
 * its owners, inherited ones included, decide which labels and formula terms it may copy.
 * The one place that builds a stored entity, for the write path and the refresh alike. Pure.
 */
export function materialise(input: MaterialiseInput): Materialised {
  const { entity, targets, reads } = input;
  let properties = entity.properties;
  if (reads) {
    properties = dropReferencesTo(properties, (id) => targets.has(id)).properties;
    const parents = referencesOf(properties, '_parent').flatMap((id) => (targets.has(id) ? [targets.get(id)!] : []));
    properties = inheritRights(properties, parents, input.stamp, input.newId).properties;
  }
  properties = withChanged({ properties, stamp: input.stamp, newId: input.newId, refresh: reads !== undefined });
  const labelled = labelReferences(properties, targets).properties;
  const resolve = reads ? (path: FormulaPath) => reads.resolve(labelled, path) : undefined;
  const computed = computeFormulas({ _id: entity._id, properties: labelled }, input.type.formulas, { stamp: input.stamp, newId: input.newId, resolve });
  return { ...indexed({ _id: entity._id, properties: withReferences(computed.properties, targets) }, input.type.searchable), computed: computed.changed };
}

/** Work a change leaves for others, committed with it (the entity's outbox) and done by the worker. */
export type Effect =
  /** Entities that read the entity (or the entity itself) are to be told and recomputed. */
  | { kind: 'changed'; change: EntityChanged }
  /** The objects of these file values are to be removed. */
  | { kind: 'files-gone'; values: Value[] }
  /** The entities of these types are to be reindexed and recomputed: their definitions changed. */
  | { kind: 'reindex'; types: string[] };

/**
 * The effects of changing an entity from `before` to `after` (undefined: created, or deleted) on
 * everything else (SPEC §9): telling those that read the change (when the schema says anyone may),
 * removing the objects of the file values that are gone (`gone`), rebuilding the entities of a type
 * whose definitions changed.
 */
export function effectsOf(schema: SchemaView, meta: MetaTypes, before: Entity | undefined, after: Entity | undefined, gone: readonly Value[]): Effect[] {
  const effects: Effect[] = [];
  const change = describeChange(before, after);
  if (change && needsSettling(schema, change)) effects.push({ kind: 'changed', change });
  const files = gone.filter(isFileValue);
  if (files.length > 0) effects.push({ kind: 'files-gone', values: files });
  const definitionOf = (state: Entity | undefined) => (state && typeOf(state.properties) === meta.property ? referencesOf(state.properties, '_parent') : []);
  const types = [...new Set([...definitionOf(before), ...definitionOf(after)])];
  if (types.length > 0) effects.push({ kind: 'reindex', types });
  return effects;
}
