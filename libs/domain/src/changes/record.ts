import { changedProperties } from '../derived/changes';
import { typeOf } from '../references';
import { READ_ACCESS_PROPERTIES } from '../rights';
import { isSecretProperty } from '../definitions/system';
import { newProperties, type Entity, type Properties } from '../entity';
import type { Author } from '../history';
import type { Value } from '../values/types';

/** What happened to the entity: it came to be, its values changed, or it was deleted. */
export const CHANGE_KINDS = ['created', 'updated', 'deleted'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * An entity's values at one side of a change, as far as the change feed needs them: to decide who
 * may read it (its rights are always complete) and whether it matches a subscriber's filter, and to
 * show `props`. Properties too large to carry are left out and named in `partial`: a filter on one
 * of them counts as matching (a subscriber gets one event too many, never one too few), and `props`
 * reads them from the database.
 */
export interface Snapshot {
  properties: Properties;
  partial: string[];
}

/**
 * One committed change of an entity, recorded with the write (its outbox) and published to the
 * database's change log. `key` (entity and version) is what makes a second publication of the same
 * change (the worker's, after the request's own) a no-op.
 */
export interface ChangeRecord {
  key: string;
  entity: string;
  /** The entity's `_type`. */
  type: string;
  kind: ChangeKind;
  /** The entity's version this change made. */
  version: number;
  at: string;
  /** The person who made it; null when the worker did (a formula, a label, inherited rights). */
  by: string | null;
  worker?: true;
  /** The properties whose values changed, sorted. */
  properties: string[];
  /** Absent for a creation. */
  before?: Snapshot;
  /** Absent for a deletion. */
  after?: Snapshot;
}

/** A string value longer than this is not carried in a snapshot (its property is `partial`). */
export const MAX_SNAPSHOT_STRING = 1024;
/** A snapshot larger than this (as JSON) leaves out its largest properties until it fits. */
export const MAX_SNAPSHOT_BYTES = 64 * 1024;

// Who may read the entity, and what it is: never left out, whatever their size.
const ALWAYS_CARRIED = new Set<string>([...READ_ACCESS_PROPERTIES, '_type']);

const tooLong = (value: Value) => Object.values(value).some((field) => typeof field === 'string' && field.length > MAX_SNAPSHOT_STRING);

/** `properties` bounded for the change log: secrets never, long strings and the largest properties left out. */
export function snapshotOf(properties: Properties): Snapshot {
  const carried = newProperties();
  const partial: string[] = [];
  const sizes: [string, number][] = [];
  let total = 0;
  for (const [name, values] of Object.entries(properties)) {
    if (isSecretProperty(name)) continue;
    if (!ALWAYS_CARRIED.has(name) && values.some(tooLong)) {
      partial.push(name);
      continue;
    }
    carried[name] = values;
    const size = JSON.stringify(values).length;
    total += size;
    if (!ALWAYS_CARRIED.has(name)) sizes.push([name, size]);
  }
  for (const [name, size] of sizes.sort((a, b) => b[1] - a[1])) {
    if (total <= MAX_SNAPSHOT_BYTES) break;
    delete carried[name];
    partial.push(name);
    total -= size;
  }
  return { properties: carried, partial: partial.sort() };
}

const KIND = (before: Entity | undefined, after: Entity | undefined): ChangeKind => (before === undefined ? 'created' : after === undefined ? 'deleted' : 'updated');

/**
 * The change from `before` to `after` (undefined: not yet, or no longer there) that makes `version`
 * of the entity, as `author` made it; undefined when no value changed (nothing to tell anyone).
 * Relabelled references are changes here, unlike in history: a subscriber showing the label
 * must learn that it moved.
 */
export function changeRecordOf(before: Entity | undefined, after: Entity | undefined, author: Author, version: number): ChangeRecord | undefined {
  const entity = (after ?? before)!;
  const properties = [...changedProperties(before?.properties ?? newProperties(), after?.properties ?? newProperties())].sort();
  if (before !== undefined && after !== undefined && properties.length === 0) return undefined;
  return {
    key: `${entity._id}:${version}`,
    entity: entity._id,
    type: typeOf(entity.properties) ?? '',
    kind: KIND(before, after),
    version,
    at: author.at,
    by: 'worker' in author ? null : author.by,
    ...('worker' in author ? { worker: true as const } : {}),
    properties,
    ...(before ? { before: snapshotOf(before.properties) } : {}),
    ...(after ? { after: snapshotOf(after.properties) } : {}),
  };
}
