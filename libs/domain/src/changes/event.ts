import type { Static } from '@sinclair/typebox';
import { presentEntity } from '../present';
import { selectedProperties } from '../query/props';
import type { ChangeEventSchema } from '../wire/change-event';
import type { Delivery } from './delivery';
import type { ChangeRecord } from './record';

export type ChangeEvent = Static<typeof ChangeEventSchema>;

/**
 * `record` as one subscriber receives it under event id `id`: an entity that left their view says
 * only that it did. `props` adds the named values of the entity as the change left it (secrets as
 * `***`, like every read).
 */
export function changeEventOf(id: string, db: string, record: ChangeRecord, delivery: Delivery, props?: readonly string[]): ChangeEvent {
  const inView = delivery === 'in-view';
  return {
    id,
    db,
    entity: record.entity,
    type: record.type,
    kind: record.kind,
    version: record.version,
    at: record.at,
    by: record.by,
    ...(record.worker ? { worker: true as const } : {}),
    inView,
    properties: inView ? record.properties : [],
    ...(inView && props && record.after ? { values: presentEntity({ _id: record.entity, properties: record.after.properties }, props) as ChangeEvent['values'] } : {}),
  };
}

/** The properties among `props` that `record` does not carry (too large): read them from the database. */
export function missingProps(record: ChangeRecord, props: readonly string[]): string[] {
  return selectedProperties(props).filter((name) => record.after?.partial.includes(name));
}
