import { DELETED, changeRecordOf, changesOf, definitionOf, effectsOf, referencesOf, typeOf, type Author, type ChangeRecord, type Effect, type Entity, type Value, type WriteContext } from '@entia/domain';
import { historyRowsIn, newId, type HistoryRow, type OutboxEntry } from '@entia/store';
import type { EntitiesDeps, SettleDeps } from '../deps';
import { isSchemaEntity } from '../definitions';
import { objectKeysOf } from '../files';
import { scheduleOwnSettle } from '../schedule';
import type { Schema } from '../schema';
import type { Tenant } from '../tenant';

/** An effect as the worker finds it in the entity's outbox. */
function entryOf(tenant: Tenant, entityId: string, effect: Effect): OutboxEntry {
  switch (effect.kind) {
    case 'changed':
      return { id: newId(), kind: 'changed', change: effect.change, depth: 0 };
    case 'files-gone':
      return { id: newId(), kind: 'delete-objects', keys: objectKeysOf(tenant.name, entityId, effect.values) };
    case 'reindex':
      return { id: newId(), kind: 'reindex', types: effect.types };
  }
}

/** Who made a write and which version of the entity it makes: what its history rows say. */
export interface Recorded {
  author: Author;
  version: number;
}

/** A write decided under `ctx` (by its caller, at its moment) that makes `version` of the entity. */
export const recordedAs = (ctx: Pick<WriteContext, 'now' | 'caller'>, version: number): Recorded => ({ author: { at: ctx.now, by: ctx.caller.personId }, version });

/**
 * The history rows of a change from `before` to `after`: one per value added,
 * overwritten, replaced or deleted, or the deletion with the owners who may still read them.
 */
export function historyOf(schema: Schema, before: Entity | undefined, after: Entity | undefined, recorded: Recorded): HistoryRow[] {
  const definitions = schema.definitionsOf(typeOf((after ?? before)!.properties));
  return historyRows(before, after, recorded, (name) => definitionOf(name, definitions)?.list ?? true);
}

/** `historyOf` where which properties are lists is known otherwise (a creation pairs nothing: any answer does). */
export function historyRows(before: Entity | undefined, after: Entity | undefined, { author, version }: Recorded, isList: (name: string) => boolean): HistoryRow[] {
  const entity = (after ?? before)!;
  return changesOf(before?.properties, after?.properties, author, isList).map((change) => ({
    ...change,
    id: newId(),
    entity: entity._id,
    version,
    ...(change.type === DELETED ? { owners: referencesOf(before!.properties, '_owner') } : {}),
  }));
}

/**
 * The history rows as an outbox entry, committed with the change: recorded by the worker, or by
 * the first reader of the entity's history before that (`recordWaiting`).
 */
export function historyEntry(rows: HistoryRow[]): OutboxEntry[] {
  return rows.length > 0 ? [{ id: newId(), kind: 'history', rows }] : [];
}

/**
 * The change as an outbox entry for the change log: published at once after the commit,
 * and by the worker if that failed; none when no value changed.
 */
export function eventEntry(before: Entity | undefined, after: Entity | undefined, recorded: Recorded): OutboxEntry[] {
  return eventOf(before, after, recorded).map((record) => ({ id: newId(), kind: 'event', record }));
}

/** The change's record for the change log; none when no value changed. */
function eventOf(before: Entity | undefined, after: Entity | undefined, { author, version }: Recorded): ChangeRecord[] {
  const record = changeRecordOf(before, after, author, version);
  return record ? [record] : [];
}

/** The change-log records among outbox entries. */
export const eventsOf = (outbox: readonly OutboxEntry[]): ChangeRecord[] => outbox.flatMap((entry) => (entry.kind === 'event' ? [entry.record] : []));

/** What a change leaves for the worker (`effectsOf`, SPEC §9). */
function effectEntries(tenant: Tenant, schema: Schema, before: Entity | undefined, after: Entity | undefined, gone: readonly Value[]): OutboxEntry[] {
  const entityId = (after ?? before)!._id;
  return effectsOf(schema, tenant.record.meta, before, after, gone).map((effect) => entryOf(tenant, entityId, effect));
}

/**
 * What a change of an existing entity leaves for the worker, its history and its event, committed
 * with it: no acknowledged change can be missing from history or from the change log.
 */
export function outboxOf(tenant: Tenant, schema: Schema, before: Entity, after: Entity | undefined, gone: readonly Value[], recorded: Recorded): OutboxEntry[] {
  return [...effectEntries(tenant, schema, before, after, gone), ...historyEntry(historyOf(schema, before, after, recorded)), ...eventEntry(before, after, recorded)];
}

/**
 * What creating `entity` leaves for the worker, its history and its event. A create that leaves
 * work for others is settled by the worker anyway, so its history rides in its outbox, in the one
 * insert. One that leaves none needs no worker: the writer records its history before the insert
 * (nobody can read a history of the entity before it exists). The event cannot be published
 * before the insert (it may fail): it is intended before (`beforeCreate`) and published after.
 */
export function creationOf(tenant: Tenant, schema: Schema, entity: Entity, recorded: Recorded): { outbox: OutboxEntry[]; history: HistoryRow[]; events: ChangeRecord[] } {
  const effects = effectEntries(tenant, schema, undefined, entity, []);
  const history = historyOf(schema, undefined, entity, recorded);
  return {
    ...(effects.length > 0 ? { outbox: [...effects, ...historyEntry(history)], history: [] } : { outbox: [], history }),
    events: eventOf(undefined, entity, recorded),
  };
}

/** Outbox entries that only record the change (history, the change log), as opposed to work on others. */
export const isRecord = (entry: OutboxEntry): boolean => entry.kind === 'history' || entry.kind === 'event';

/**
 * Records the history rows among `outbox` now (a settle's own change, so that it can drop them
 * from the outbox at once); the worker's delivery is the guarantee. Never throws; resolves
 * whether they were recorded.
 */
export async function recordHistory(deps: Pick<SettleDeps, 'store' | 'logger'>, db: string, outbox: readonly OutboxEntry[]): Promise<boolean> {
  return deps.store
    .history(db)
    .record(historyRowsIn(outbox))
    .then(
      () => true,
      (err: unknown) => {
        deps.logger.error({ err, db }, 'could not record history now; the worker records it');
        return false;
      },
    );
}

/**
 * Publishes `events` to the change log now, one after the other; the worker's delivery of the
 * outbox (or, for a creation, its sweep of intents) is the guarantee, and publishing again is a
 * no-op. A change of an existing entity publishes while the writer still holds the
 * entity's lease (`Plan.committed`), so the log has an entity's changes in the order of its
 * versions. Never throws; resolves whether all were published.
 */
export async function publishNow(deps: Pick<SettleDeps, 'changes' | 'logger'>, db: string, events: readonly ChangeRecord[]): Promise<boolean> {
  try {
    for (const record of events) await deps.changes.publish(db, record);
    return true;
  } catch (err) {
    deps.logger.error({ err, db }, 'could not publish a change now; the worker publishes it');
    return false;
  }
}

/**
 * Cached copies of the entity (and the lists, and the schema when it is a type or definition) are
 * invalidated twice. Before the commit, and a failure fails the write before anything is stored: no
 * copy made before the write is read after it. After the commit, for a reader that raced the write
 * and cached the old state under the new token; that one must not fail a stored write, so it is
 * logged (docs/decisions.md: the argument for read-your-own-writes).
 */
export const invalidate = (deps: EntitiesDeps, tenant: Tenant, ...entities: Entity[]) =>
  deps.generations.touch(tenant.name, entities.map((entity) => entity._id), entities.some((entity) => isSchemaEntity(tenant, entity)));

/** An entity as a write left it, the work it left for the worker, and (a creation) its intended events. */
export interface Written {
  entity: Entity;
  outbox: readonly OutboxEntry[];
  events?: readonly ChangeRecord[];
}

/**
 * Before new entities are inserted: cached lists are invalidated and their events intended (see
 * `creationOf`); a failure fails the create before anything is stored.
 */
export async function beforeCreate(deps: EntitiesDeps, tenant: Tenant, ...written: Written[]): Promise<void> {
  await Promise.all([invalidate(deps, tenant, ...written.map(({ entity }) => entity)), deps.changes.intend(tenant.name, written.flatMap(({ events = [] }) => events))]);
}

/**
 * After the commit: nothing here can fail the request, the write stands and its effects are
 * recorded. Its history rows are not written here: they are in the entity's outbox (or, for a
 * creation, recorded already), read from there until the worker records them.
 */
export async function afterCommit(deps: EntitiesDeps, tenant: Tenant, ...written: Written[]): Promise<void> {
  const ids = written.map(({ entity }) => entity._id);
  // Independent, and neither can fail the write: side by side, one wait fewer.
  await Promise.all([
    invalidate(deps, tenant, ...written.map(({ entity }) => entity)).catch((err: unknown) => {
      deps.logger.error({ err, db: tenant.name, entity: ids.length === 1 ? ids[0] : ids }, 'could not invalidate cached copies after a write');
    }),
    // A creation's: nobody else can have written the entity yet (its id is not known outside).
    publishNow(deps, tenant.name, written.flatMap(({ events = [] }) => events)),
  ]);
  const pending = written.filter(({ outbox }) => outbox.length > 0).map(({ entity }) => entity._id);
  if (pending.length > 0) await scheduleOwnSettle(deps, tenant.name, pending);
}
