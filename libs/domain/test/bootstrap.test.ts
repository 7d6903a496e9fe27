import {
  bootstrapDatabase,
  canRead,
  definitionFrom,
  checkDefinition,
  hasRight,
  referencesOf,
  sharingOf,
  typeOf,
  type Entity,
  type Value,
} from '@entia/domain';
import { NOW, STRANGER, counter } from './fixtures';

const boot = bootstrapDatabase({ name: 'library', ownerName: 'Ann Admin', now: NOW, newId: counter(1) });
const { meta, owner, databaseEntity, entities } = boot;
const byId = new Map(entities.map((entity) => [entity._id, entity]));
const nameOf = (entity: Entity) => entity.properties.name?.[0]?.string;
const definitionsOf = (typeId: string) =>
  entities.filter((e) => typeOf(e.properties) === meta.property && referencesOf(e.properties, '_parent').includes(typeId));
const allValues = (): Value[] => entities.flatMap((e) => Object.values(e.properties).flat());

describe('bootstrapDatabase', () => {
  it('creates the five meta-types, named, each of type entity', () => {
    for (const name of ['entity', 'property', 'person', 'database', 'webhook'] as const) {
      const type = byId.get(meta[name]!)!;
      expect(nameOf(type)).toBe(name);
      expect(typeOf(type.properties)).toBe(meta.entity);
    }
  });

  it('makes entity its own type', () => {
    expect(typeOf(byId.get(meta.entity)!.properties)).toBe(meta.entity);
  });

  it.each<[keyof typeof meta, string[]]>([
    ['entity', ['description', 'label', 'name']],
    ['property', ['default', 'description', 'formula', 'label', 'list', 'mandatory', 'multilingual', 'name', 'ordinal', 'readonly', 'reference_query', 'search', 'type']],
    ['person', ['email', 'name']],
    ['database', ['name', 'oidc_email_match', 'oidc_self_registration']],
    ['webhook', ['active', 'filter', 'name', 'secret', 'url']],
  ])('gives %s its property definitions', (typeName, names) => {
    const definitions = definitionsOf(meta[typeName]!);
    expect(definitions.map(nameOf).sort()).toEqual(names);
    for (const definition of definitions) {
      expect(checkDefinition(definition.properties)).toEqual([]);
      expect(definitionFrom(definition.properties)).toBeDefined();
      expect(referencesOf(definition.properties, '_parent')).toEqual([meta[typeName]!]);
    }
  });

  it('defines the flags the service relies on', () => {
    const flags = (typeName: keyof typeof meta, name: string) => definitionFrom(definitionsOf(meta[typeName]!).find((d) => nameOf(d) === name)!.properties)!;
    expect(flags('person', 'name')).toEqual(expect.objectContaining({ type: 'string', search: true, list: false }));
    expect(flags('entity', 'label')).toEqual(expect.objectContaining({ type: 'string', multilingual: true }));
    expect(flags('property', 'list')).toEqual(expect.objectContaining({ type: 'boolean' }));
    expect(flags('property', 'ordinal')).toEqual(expect.objectContaining({ type: 'number' }));
    expect(flags('webhook', 'url')).toEqual(expect.objectContaining({ type: 'string', mandatory: true }));
    expect(flags('webhook', 'secret')).toEqual(expect.objectContaining({ type: 'string', mandatory: true }));
    expect(flags('webhook', 'active')).toEqual(expect.objectContaining({ type: 'boolean', mandatory: false }));
  });

  it('creates the database entity and the first person, with their names', () => {
    expect(typeOf(byId.get(databaseEntity)!.properties)).toBe(meta.database);
    expect(nameOf(byId.get(databaseEntity)!)).toBe('library');
    expect(typeOf(byId.get(owner)!.properties)).toBe(meta.person);
    expect(nameOf(byId.get(owner)!)).toBe('Ann Admin');
  });

  it('makes the first person the owner of everything, and of the database', () => {
    for (const entity of entities) {
      expect(referencesOf(entity.properties, '_owner')).toEqual([owner]);
      expect(hasRight(entity.properties, { personId: owner }, 'owner')).toBe(true);
    }
  });

  it('shares types and definitions with the whole domain, not the public', () => {
    const shared = entities.filter((e) => [meta.entity, meta.property].includes(typeOf(e.properties)!));
    expect(shared).toHaveLength(5 + 3 + 13 + 2 + 3 + 5);
    for (const entity of shared) {
      expect(sharingOf(entity.properties)).toBe('domain');
      expect(canRead(entity.properties, { personId: STRANGER })).toBe(true);
      expect(canRead(entity.properties, {})).toBe(false);
    }
  });

  it('keeps the first person private', () => {
    const person = byId.get(owner)!.properties;
    expect(sharingOf(person)).toBe('private');
    expect(canRead(person, { personId: STRANGER })).toBe(false);
  });

  it('stamps every entity with _created, when and by whom', () => {
    for (const entity of entities) {
      expect(entity.properties._created).toEqual([expect.objectContaining({ datetime: NOW, reference: owner })]);
      expect(entity.properties._type).toHaveLength(1);
    }
    for (const value of allValues()) expect(value.created).toEqual({ at: NOW, by: owner });
  });

  it('gives every entity and every value its own id', () => {
    const ids = [...entities.map((e) => e._id), ...allValues().map((v) => v._id)];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(new Set([...Object.values(meta), owner, databaseEntity]).size).toBe(7);
  });

  it('has every reference point at an entity of the database', () => {
    for (const value of allValues()) if (value.reference !== undefined) expect(byId.has(value.reference)).toBe(true);
  });
});
