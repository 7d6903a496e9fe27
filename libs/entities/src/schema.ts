import { boundedCache, compileType, definitionMap, labelOf, referencesOf, typeOf, type CompiledType, type Entity, type FormulaPath, type Properties, type PropertyDefinition, type ValueType, type BoundedCache } from '@entia/domain';
import { isRedisUnavailable, type Generations } from '@entia/jobs';
import type { DatabaseRecord, Store } from '@entia/store';

/**
 * A database's types and property definitions, compiled (formulas and `reference_query`s parsed,
 * searchable properties known) once per schema generation: every write, refresh, reference check
 * and list query reads them from here.
 */
export interface Schema {
  /** Type id → the type's `name` (what formula paths name). */
  typeNames: ReadonlyMap<string, string>;
  /**
   * Type id → the type entity as stored. Every write of a type replaces the schema token, so these
   * are as current as a read: a create's `_type` target needs no database round trip.
   */
  types: ReadonlyMap<string, Entity>;
  /** A type's definitions and what is derived from them (nothing for an unknown type). */
  typeOf(typeId: string | undefined): CompiledType;
  /**
   * The property-definition entities of a type as stored (those whose first `_parent` it is),
   * complete or not: what `GET /api/{db}/schema` filters by the caller's rights.
   */
  definitionEntitiesOf(typeId: string): readonly Entity[];
  /** The user property definitions of a type, by name (`typeOf(typeId).definitions`). */
  definitionsOf(typeId: string | undefined): ReadonlyMap<string, PropertyDefinition>;
  /** The data types each property name has, in the given types (all types when undefined). */
  propertyTypes(typeIds: readonly string[] | undefined): Map<string, Set<ValueType>>;
  /** Every path into other entities that some formula of the database reads. */
  paths: readonly FormulaPath[];
}

const EMPTY = compileType(new Map());

/** What is kept per database: the schema and the token it was read under. */
interface Kept {
  token: string;
  schema: Schema;
}

/**
 * Schemas cached per process and keyed by the database's schema token (`Generations`), which every
 * write of a type or definition replaces before it is acknowledged: a cached schema is used only
 * while nothing in it has changed, at the cost of one Redis GET. Per process, a handful of
 * databases at a time are busy; the rest reload on their next use (`schemas` bound).
 */
export class SchemaCache {
  private readonly schemas: BoundedCache<string, Kept, { token: string; record: DatabaseRecord }>;

  constructor(
    private readonly store: Store,
    private readonly generations: Generations,
  ) {
    this.schemas = boundedCache('schemas', { load: async (db, { token, record }) => ({ token, schema: await this.load(db, record) }) });
  }

  async of(db: string, record: DatabaseRecord): Promise<Schema> {
    const token = await this.generations.schema(db).catch((error: unknown) => {
      if (isRedisUnavailable(error)) return undefined;
      throw error;
    });
    // Without Redis the token is unknown, and so whether a cached schema is current: read it
    // afresh and keep nothing. Reads go on answering (SPEC §11); writes fail at their lease anyway.
    if (token === undefined) return this.load(db, record);
    // Requests arriving together share one load: on an engine that scans for it, ten concurrent
    // loads could each take longer than one. A schema kept under another token is loaded again; a
    // load still running under another token (which `fetch` hands out to whoever asks) is passed by.
    const kept = await this.schemas.fetch(db, { context: { token, record }, forceRefresh: this.schemas.peek(db)?.token !== token });
    return kept?.token === token ? kept.schema : this.load(db, record);
  }

  private async load(db: string, record: DatabaseRecord): Promise<Schema> {
    const entities = this.store.entities(db);
    const [types, definitions] = await Promise.all([entities.ofType(record.meta.entity), entities.definitions(record.meta.property)]);
    return compileSchema(types, definitions);
  }
}

/** The schema of a database from its type entities and its property-definition entities. */
export function compileSchema(types: readonly Entity[], definitions: readonly Entity[]): Schema {
  const typeNames = new Map(types.flatMap((type) => (labelOf(type.properties) === undefined ? [] : [[type._id, labelOf(type.properties)!] as const])));
  const parented = new Map<string, Entity[]>();
  for (const entity of definitions) {
    const type = referencesOf(entity.properties, '_parent')[0];
    if (type !== undefined) parented.set(type, [...(parented.get(type) ?? []), entity]);
  }
  const byType = new Map([...parented].map(([type, entities]) => [type, compileType(definitionMap(entities))]));
  const paths = [...byType.values()].flatMap((compiled) => compiled.formulas.flatMap((formula) => formula.paths));
  const typeOf = (typeId: string | undefined) => (typeId === undefined ? EMPTY : (byType.get(typeId) ?? EMPTY));
  return {
    typeNames,
    types: new Map(types.map((type) => [type._id, type])),
    typeOf,
    definitionEntitiesOf: (typeId) => parented.get(typeId) ?? [],
    definitionsOf: (typeId) => typeOf(typeId).definitions,
    propertyTypes(typeIds) {
      const found = new Map<string, Set<ValueType>>();
      const compiled = typeIds === undefined ? [...byType.values()] : typeIds.flatMap((id) => (byType.has(id) ? [byType.get(id)!] : []));
      for (const { definitions } of compiled) {
        for (const definition of definitions.values()) (found.get(definition.name) ?? found.set(definition.name, new Set()).get(definition.name)!).add(definition.type);
      }
      return found;
    },
    paths,
  };
}

/** The name of an entity's type in `schema`. */
export function typeNameOf(schema: Schema, properties: Properties): string | undefined {
  const type = typeOf(properties);
  return type === undefined ? undefined : schema.typeNames.get(type);
}
