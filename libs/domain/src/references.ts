import { referencesOf, type Properties } from './entity';
import { forbidden, invalid, type FieldError } from './errors';
import { canRead, hasRight, isPersonList, type Caller } from './rights';
import type { ReferenceCheck } from './write';

/** The ids of a database's meta-types (SPEC §4), fixed when the database is created. */
export interface MetaTypes {
  entity: string;
  property: string;
  person: string;
  database: string;
  /**
   * The `webhook` meta-type. Absent on databases created before it existed: they have
   * no webhooks (`createDatabase` bootstraps it for new ones).
   */
  webhook?: string;
}

export function typeOf(properties: Properties): string | undefined {
  return referencesOf(properties, '_type')[0];
}

/** Whether entities of this type make up a database's schema: its types and property definitions. */
export function isSchemaType(meta: MetaTypes, typeId: string | undefined): boolean {
  return typeId === meta.entity || typeId === meta.property;
}

/**
 * Resolves a write's references against their targets (loaded by the caller; absent = no such
 * entity): each must exist and be readable by the writer; `_type` must point at a type; right
 * lists at persons of the database (readable or not); `_parent` needs the expander right on the
 * parent (403 when it can be read).
 */
export function checkReferences(
  checks: ReferenceCheck[],
  targets: ReadonlyMap<string, Properties>,
  caller: Caller,
  meta: MetaTypes,
): void {
  const errors: FieldError[] = [];
  for (const { pointer, property, id } of checks) {
    const target = targets.get(id);
    if (isPersonList(property)) {
      // Sharing with a colleague must not need the right to read their person entity: a right
      // list only has to name a person of this database.
      if (!target || typeOf(target) !== meta.person) errors.push({ pointer, message: `${id} is not a person of this database` });
    } else if (!target || !canRead(target, caller)) {
      errors.push({ pointer, message: `no entity ${id} that you can read in this database` });
    } else if (property === '_type' && typeOf(target) !== meta.entity) {
      errors.push({ pointer, message: `${id} is not a type: _type must reference an entity of type "entity"` });
    } else if (property === '_parent' && !hasRight(target, caller, 'expander')) {
      throw forbidden(`setting _parent to ${id} needs the expander right on it`);
    }
  }
  if (errors.length > 0) throw invalid('Some references do not resolve; nothing was written.', errors);
}
