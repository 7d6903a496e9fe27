import { changedProperties, describeChange, isSchemaType, typeOf, type Entity, type EntityChanged } from '@entia/domain';
import type { DatabaseRecord, OutboxEntry, Plan } from '@entia/store';
import { refreshed } from './refresh';
import type { SettleDeps } from './deps';
import { MAX_CASCADE_DEPTH, dependentIds, scheduleSettle } from './schedule';
import type { Schema } from './schema';
import { eventEntry, eventsOf, historyEntry, historyOf, isRecord, publishNow, recordHistory } from './write/effects';

export interface SettleOptions {
  /** Recompute what it derives from others even when nothing it reads is known to have changed (`/aggregate`, rebuilds). */
  recompute?: boolean;
  /**
   * Deliver its own outbox only (the settle a write of the entity asks for): its pending marks are
   * neither read nor cleared, those have settles of their own. One read of the entity fewer.
   */
  own?: boolean;
}

export interface Settled {
  /** The entity as it is now; undefined when it does not exist. */
  entity: Entity | undefined;
  /** Whether this run changed it. */
  changed: boolean;
  /** Whether its dependents were left alone because the cascade is too deep (a cycle). */
  cutOff: boolean;
}

/** Entities told of a change: marked pending (durably), to be settled in turn. */
interface Told {
  marked: string[];
  cutOff: boolean;
}

/** Marks the entities that read `change` as pending, one cascade step deeper. */
async function tell(deps: SettleDeps, db: string, schema: Schema, change: EntityChanged, depth: number): Promise<Told> {
  const ids = await dependentIds(deps, schema, db, change);
  if (ids.size === 0) return { marked: [], cutOff: false };
  if (depth > MAX_CASCADE_DEPTH) return { marked: [], cutOff: true };
  await deps.store.registry.pending.mark(db, ids, depth);
  return { marked: [...ids], cutOff: false };
}

/** Carries out one outbox entry. Each is idempotent, so delivering one twice does no harm. */
async function deliver(deps: SettleDeps, db: string, schema: Schema, entry: OutboxEntry): Promise<Told> {
  switch (entry.kind) {
    case 'changed':
      return tell(deps, db, schema, entry.change, entry.depth + 1);
    case 'delete-objects':
      for (const key of entry.keys) await deps.objects.remove(key);
      return { marked: [], cutOff: false };
    case 'history':
      await deps.store.history(db).record(entry.rows);
      return { marked: [], cutOff: false };
    case 'event':
      await deps.changes.publish(db, entry.record);
      return { marked: [], cutOff: false };
    case 'reindex': {
      // Their search index follows the definitions, and their formulas may have changed.
      const marked: string[] = [];
      for (const type of entry.types) {
        for await (const ids of deps.store.entities(db).idsOfType(type)) {
          await deps.store.registry.pending.mark(db, ids, 1, { rederive: true });
          marked.push(...ids);
        }
      }
      return { marked, cutOff: false };
    }
  }
}

/**
 * After a settle recorded its own change's history and event: drops their outbox entries from the entity
 * at once (rather than in a settle of its own). On failure the entry stays, and the next settle
 * (the sweep's, at the latest) delivers it. Never throws.
 */
async function dropRecorded(deps: SettleDeps, db: string, id: string, recorded: readonly OutboxEntry[]): Promise<void> {
  const ids = new Set(recorded.map((entry) => entry.id));
  await deps.writer
    .update(db, id, async (stored): Promise<Plan<void>> => {
      const delivered = (stored?.outbox ?? []).filter((entry) => ids.has(entry.id)).map((entry) => entry.id);
      return { next: { kind: 'keep' }, delivered, outcome: undefined };
    })
    .catch((err: unknown) => deps.logger.error({ err, db, entity: id }, 'could not drop recorded history from the outbox; the next settle does'));
}

/**
 * Settles an entity (SPEC §9): delivers its outbox (tells the entities reading its changes, removes
 * objects of deleted files, schedules reindexing), then recomputes what it derives from others and
 * stores that if it changed, telling its own readers in turn. All under the entity's lease, through
 * the one write path; the pending marks seen before reading are cleared with the commit, so a
 * change arriving meanwhile leaves its mark for the next run. Idempotent: a second run finds
 * nothing to do, so a cascade ends when a step changes nothing.
 */
export async function settleEntity(deps: SettleDeps, db: string, record: DatabaseRecord, id: string, depth: number, options: SettleOptions = {}): Promise<Settled> {
  const pending = deps.store.registry.pending;
  const marked: string[] = [];
  let records: OutboxEntry[] = [];
  let published = false;
  const settled = await deps.writer.update(db, id, async (stored): Promise<Plan<Settled>> => {
    const marks = options.own ? [] : await pending.of(db, id);
    if (!stored) return { next: { kind: 'keep' }, settles: marks, outcome: { entity: undefined, changed: false, cutOff: false } };
    const schema = await deps.schemas.of(db, record);
    let cutOff = false;
    const tellAll = (told: Told) => {
      marked.push(...told.marked);
      cutOff ||= told.cutOff;
    };
    for (const entry of stored.outbox) tellAll(await deliver(deps, db, schema, entry));
    const delivered = stored.outbox.map((entry) => entry.id);
    if (stored.deleted) return { next: { kind: 'purge' }, delivered, settles: marks, outcome: { entity: undefined, changed: false, cutOff } };
    // Only its own write's history and event to record, and nothing it reads known to have changed:
    // the write materialised the entity completely, as it did before they had outbox entries.
    const onlyRecords = marks.length === 0 && stored.outbox.every(isRecord);
    if (onlyRecords && !options.recompute) return { next: { kind: 'keep' }, delivered, settles: marks, outcome: { entity: stored.entity, changed: false, cutOff } };

    const next = await refreshed(deps.store.entities(db), schema, record, stored.entity);
    const { properties } = next.entity;
    const rederive = marks.some((mark) => mark.rederive);
    if (changedProperties(stored.entity.properties, properties).size === 0 && !rederive) {
      return { next: { kind: 'keep' }, delivered, settles: marks, outcome: { entity: stored.entity, changed: false, cutOff } };
    }
    const { entity } = next;
    // Undefined when only labels of rights moved: stored, but nobody reads that.
    const change = describeChange(stored.entity, entity);
    const from = Math.min(depth, ...marks.map((mark) => mark.depth));
    if (change) tellAll(await tell(deps, db, schema, change, from + 1));
    const type = typeOf(properties);
    // Before the commit, so no cached copy of the old state outlives it (see the write path).
    await deps.generations.touch(db, [id], isSchemaType(record.meta, type));
    // Recorded and published like a person's change, marked as the worker's; dropped from the
    // outbox once recorded (`dropRecorded`).
    const recorded = { author: { at: new Date().toISOString(), worker: true as const }, version: stored.version + 1 };
    records = [...historyEntry(historyOf(schema, stored.entity, entity, recorded)), ...eventEntry(stored.entity, entity, recorded)];
    return {
      next: { kind: 'replace', stored: next },
      delivered,
      add: records,
      // Under the lease: the log has the entity's changes in the order of its versions.
      committed: async () => {
        published = await publishNow(deps, db, eventsOf(records));
      },
      settles: marks,
      outcome: { entity, changed: true, cutOff },
    };
  });
  if (settled.changed && records.length > 0 && (await recordHistory(deps, db, records)) && published) await dropRecorded(deps, db, id, records);
  if (settled.changed) {
    await deps.generations.touch(db, [id], isSchemaType(record.meta, typeOf(settled.entity!.properties))).catch((err: unknown) => {
      deps.logger.error({ err, db, entity: id }, 'could not invalidate cached copies after settling');
    });
  }
  await scheduleSettle(deps, db, marked, depth + 1);
  return settled;
}
