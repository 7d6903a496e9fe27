import type { Static } from '@sinclair/typebox';
import type { Caller } from './rights';
import type { ChangeSchema } from './wire/history';
import { isComputedProperty } from './definitions/system';
import { sameUnlabelled } from './derived/changes';
import { newProperties, type Properties } from './entity';
import { presentValue } from './present';
import { invalid } from './errors';
import { normaliseDatetime } from './values/datetime';
import type { Value } from './values/types';

/** The change types that are not a property's: the entity came to be, or was deleted. */
export const CREATED = '_created';
export const DELETED = '_deleted';

/** Who made a change: a person, or the worker recomputing derived values (formulas, inherited rights). */
export type Author = { at: string; by: string } | { at: string; worker: true };

/**
 * One recorded change of an entity, its wire shape (`ChangeSchema`): `type` is the
 * property name (or `_deleted`), `old` and `new` the value before and after. Added: `new` only;
 * deleted: `old` only; overwritten or replaced: both. Secrets are recorded as clients see them
 * (`***`), never as stored.
 */
export type Change = Static<typeof ChangeSchema>;

/**
 * The changes that turn `before` into `after` (undefined: not yet, or no longer there), as
 * `author` made them, in a stable order: `_created` first, then property by property. A
 * single-valued property (`isList` false) whose value was replaced is one change with `old` and
 * `new` (per language), as is a value overwritten under its own id. Relabelled references are not
 * changes: a label follows the referenced entity's name. A deletion is one `_deleted` change.
 */
export function changesOf(before: Properties | undefined, after: Properties | undefined, author: Author, isList: (name: string) => boolean): Change[] {
  const stamp: Pick<Change, 'at' | 'by' | 'worker'> = 'worker' in author ? { at: author.at, by: null, worker: true } : { at: author.at, by: author.by };
  if (after === undefined) return before === undefined ? [] : [{ type: DELETED, ...stamp }];
  const was = before ?? newProperties();
  const names = [...new Set([...Object.keys(was), ...Object.keys(after)])].sort((a, b) => (a === CREATED ? -1 : b === CREATED ? 1 : a < b ? -1 : a > b ? 1 : 0));
  const changes: Change[] = [];
  const change = (type: string, old: Value | undefined, next: Value | undefined) =>
    changes.push({ type, ...stamp, ...(old ? { old: presentValue(old) } : {}), ...(next ? { new: presentValue(next) } : {}) });
  for (const name of names) {
    // Computed from the values whose changes are recorded here: recording them too would repeat them.
    if (isComputedProperty(name)) continue;
    const olds = was[name] ?? [];
    const news = after[name] ?? [];
    const newById = new Map(news.map((value) => [value._id, value]));
    const oldIds = new Set(olds.map((value) => value._id));
    const removed: Value[] = [];
    for (const old of olds) {
      const next = newById.get(old._id);
      if (next === undefined) removed.push(old);
      else if (!sameUnlabelled(old, next)) change(name, old, next);
    }
    const added = news.filter((value) => !oldIds.has(value._id));
    if (!isList(name)) {
      // A replaced single value: the old one of the same language pairs with the new one.
      for (const next of [...added]) {
        const i = removed.findIndex((old) => old.language === next.language);
        if (i < 0) continue;
        change(name, removed.splice(i, 1)[0], next);
        added.splice(added.indexOf(next), 1);
      }
    }
    for (const old of removed) change(name, old, undefined);
    for (const next of added) change(name, undefined, next);
  }
  return changes;
}

/**
 * The entity's values at a moment, from its changes up to then in the order they were made
 * (oldest first): undefined when it did not exist yet, or no longer did.
 */
export function propertiesAt(changes: readonly Change[]): Properties | undefined {
  let state: Properties | undefined;
  for (const { type, old, new: next } of changes) {
    if (type === DELETED) {
      state = undefined;
      continue;
    }
    if (type === CREATED && next && !old) state = newProperties();
    if (state === undefined) continue;
    const values = state[type] ?? [];
    const at = old ? values.findIndex((value) => value._id === old._id) : -1;
    const kept = at < 0 ? values : [...values.slice(0, at), ...values.slice(at + 1)];
    const placed = next ? (at < 0 ? [...kept, next] : [...kept.slice(0, at), next, ...kept.slice(at)]) : kept;
    if (placed.length > 0) state[type] = placed;
    else delete state[type];
  }
  return state;
}

/** A point in time a client names (`?at=`): ISO 8601 with an offset, as a `datetime` value. */
export function parseInstant(text: string, parameter = 'at'): string {
  const instant = normaliseDatetime(text);
  if (instant === undefined) throw invalid(`\`${parameter}\` must be an ISO 8601 date and time with an offset, like 2026-11-23T10:00:00Z.`, [{ parameter, message: 'not an ISO 8601 date and time with an offset' }]);
  return instant;
}

/**
 * Whether the caller may read the history of an entity that is gone: its last owners may, until
 * the retention ends. (While it exists, whoever may read it now: history never widens access.)
 */
export function mayReadGone(lastOwners: readonly string[], caller: Caller): boolean {
  return caller.personId !== undefined && lastOwners.includes(caller.personId);
}
