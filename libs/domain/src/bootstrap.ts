import { labelReferences } from './derived/labels';
import type { Entity, Properties } from './entity';
import type { MetaTypes } from './references';
import { DEFINITION_OPTIONS } from './values/registry';
import type { Value, ValueType } from './values/types';

interface DefinitionSpec {
  name: string;
  type: ValueType;
  list?: boolean;
  multilingual?: boolean;
  search?: boolean;
  mandatory?: boolean;
}

type MetaName = keyof MetaTypes;

/** The property definitions every new database starts with, per meta-type (SPEC §4, §5; `webhook`). */
const META_DEFINITIONS: Record<MetaName, DefinitionSpec[]> = {
  entity: [
    { name: 'name', type: 'string', search: true },
    { name: 'label', type: 'string', multilingual: true },
    { name: 'description', type: 'text', multilingual: true },
  ],
  property: [
    { name: 'name', type: 'string', search: true },
    { name: 'type', type: 'string' },
    { name: 'list', type: 'boolean' },
    { name: 'multilingual', type: 'boolean' },
    { name: 'search', type: 'boolean' },
    // The options only some value types take (a reference's `reference_query`), as their descriptors declare them.
    ...DEFINITION_OPTIONS.map(({ option }): DefinitionSpec => ({ name: option.name, type: 'string' })),
    { name: 'formula', type: 'string' },
    { name: 'label', type: 'string', multilingual: true },
    { name: 'description', type: 'text', multilingual: true },
    { name: 'mandatory', type: 'boolean' },
    { name: 'readonly', type: 'boolean' },
    { name: 'default', type: 'string' },
    { name: 'ordinal', type: 'number' },
  ],
  person: [
    { name: 'name', type: 'string', search: true },
    { name: 'email', type: 'string', search: true },
  ],
  database: [
    { name: 'name', type: 'string', search: true },
    // Sign-in settings (sign-in-settings.ts): off until an owner turns them on.
    { name: 'oidc_self_registration', type: 'boolean' },
    { name: 'oidc_email_match', type: 'boolean' },
  ],
  // The rules of its values (an http(s) URL, a filter that parses, a long enough secret) are in webhooks.ts.
  webhook: [
    { name: 'name', type: 'string', search: true },
    { name: 'url', type: 'string', mandatory: true },
    { name: 'filter', type: 'string' },
    { name: 'secret', type: 'string', mandatory: true },
    { name: 'active', type: 'boolean' },
  ],
};

const META_NAMES = Object.keys(META_DEFINITIONS) as MetaName[];

export interface Bootstrap {
  meta: MetaTypes;
  databaseEntity: string;
  owner: string;
  entities: Entity[];
  /** The searchable properties of one of these entities, by the definitions of its meta-type. */
  searchable(entity: Entity): ReadonlySet<string>;
}

/**
 * The entities of a new database: the meta-types (`entity` is its own type), their definitions,
 * the `database` entity and the first person, who owns them all. Types and definitions are shared
 * with the whole domain, so every person of the database can use them.
 */
export function bootstrapDatabase(args: { name: string; ownerName: string; now: string; newId(): string }): Bootstrap {
  const { newId, now } = args;
  const meta: Required<MetaTypes> = { entity: newId(), property: newId(), person: newId(), database: newId(), webhook: newId() };
  const owner = newId();
  const databaseEntity = newId();
  const stamp = { at: now, by: owner };
  const value = (type: string, data: Partial<Value>): Value => ({ _id: newId(), type, ...data, created: stamp });

  const entity = (id: string, type: string, fields: Properties, sharing: 'domain' | 'private'): Entity => ({
    _id: id,
    properties: {
      _type: [value('_type', { reference: type })],
      _owner: [value('_owner', { reference: owner })],
      _sharing: [value('_sharing', { string: sharing })],
      _created: [value('_created', { datetime: now, reference: owner })],
      ...fields,
    },
  });
  const named = (name: string): Properties => ({ name: [value('name', { string: name })] });

  const types = META_NAMES.map((name) => entity(meta[name], meta.entity, named(name), 'domain'));
  const definitions = META_NAMES.flatMap((typeName) =>
    META_DEFINITIONS[typeName].map((spec) => {
      const flags: Properties = {};
      for (const flag of ['list', 'multilingual', 'search', 'mandatory'] as const) {
        if (spec[flag]) flags[flag] = [value(flag, { boolean: true })];
      }
      return entity(newId(), meta.property, {
        ...named(spec.name),
        type: [value('type', { string: spec.type })],
        _parent: [value('_parent', { reference: meta[typeName] })],
        ...flags,
      }, 'domain');
    }),
  );

  const searchableByType = new Map(
    META_NAMES.map((typeName) => [
      meta[typeName],
      new Set(META_DEFINITIONS[typeName].filter((spec) => spec.search).map((spec) => spec.name)),
    ]),
  );
  return {
    meta,
    databaseEntity,
    owner,
    searchable: (entity) => searchableByType.get(entity.properties._type?.[0]?.reference ?? '') ?? new Set(),
    entities: labelled([
      ...types,
      ...definitions,
      entity(databaseEntity, meta.database, named(args.name), 'domain'),
      entity(owner, meta.person, named(args.ownerName), 'private'),
    ]),
  };
}

/** Their references labelled as a write labels them (SPEC §3), so that `_type.string=person` finds the first person too. */
function labelled(entities: Entity[]): Entity[] {
  const targets = new Map(entities.map((entity) => [entity._id, entity.properties]));
  return entities.map((entity) => ({ ...entity, properties: labelReferences(entity.properties, targets).properties }));
}
