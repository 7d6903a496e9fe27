import {
  DEFAULT_LIMIT,
  MAX_DUPLICATES,
  SYSTEM_DEFINITIONS,
  fieldDescriptorOf,
  fieldsOf,
  graphqlTypeName,
  invalid,
  parseReferenceQuery,
  sanitiseGraphqlName,
  uniqueGraphqlNames,
  type PropertyDefinition,
  type ValueInput as DomainValueInput,
} from '@entia/domain';
import { addValues, aggregateEntity, createEntity, deleteEntity, deleteValue, duplicateEntity, existingId, getEntity, listEntities, type Schema } from '@entia/entities';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLScalarType,
  type GraphQLOutputType,
} from 'graphql';
import { ValuesBody } from '../routes/schemas';
import { compileValidator } from '../http/validate';
import { SHARED_TYPE_NAMES, TYPE_FILTERS, ValueInput, WriteResult, scalarOfField } from './common';
import type { GraphqlContext, Naming } from './context';
import { EntityInterface, OtherEntity, RECORD_VALUES, localized, nonNullList, pagedCost, systemFields, valuesOf } from './entity-fields';
import { guarded } from './errors';
import { listQueryOfArgs, sortKeysOf, type Filterable, type ListArgs } from './filters';
import type { Shown } from './loaders';

/** A generated schema and how its types are named. */
export interface BuiltSchema {
  schema: GraphQLSchema;
  naming: Naming;
}

const checkValues = compileValidator(ValuesBody, 'body');
const SYSTEM_FIELD_NAMES = Object.keys(systemFields(() => EntityInterface));
// Filterable system properties every type has, beside its own definitions.
const SYSTEM_FILTERS = [...SYSTEM_DEFINITIONS.values()].filter((definition) => definition.name === '_created' || definition.name === '_sharing');

/** Values as the REST body takes them: GraphQL's explicit nulls dropped, then the same schema checks (bounds, shapes). */
function valuesInput(values: readonly Record<string, unknown>[]): DomainValueInput[] {
  const cleaned = values.map((value) => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null && field !== undefined)));
  const errors = checkValues(cleaned);
  if (errors.length > 0) throw invalid('The values are invalid.', errors);
  return cleaned as unknown as DomainValueInput[];
}

/** The type a definition's `reference_query` pins (`_type.reference=<id>`), if it pins one. */
function pinnedType(definition: PropertyDefinition): string | undefined {
  if (definition.referenceQuery === undefined) return undefined;
  try {
    const filter = parseReferenceQuery(definition.referenceQuery).filters.find((f) => f.property === '_type' && f.field === 'reference' && f.op === 'eq');
    return filter && filter.op === 'eq' ? String(filter.value) : undefined;
  } catch {
    return undefined;
  }
}

/** The output field of one property definition: list or single, shaped by its value type. */
function propertyField(definition: PropertyDefinition, objectOf: (typeId: string) => GraphQLOutputType | undefined): GraphQLFieldConfig<Shown, GraphqlContext> {
  const many = (item: GraphQLOutputType) => (definition.list ? nonNullList(item) : item);
  const pick = <T>(items: T[]) => (definition.list ? items : (items[0] ?? null));
  const languageArg: GraphQLFieldConfigArgumentMap = definition.multilingual ? { language: { type: GraphQLString, description: 'Only values in this language.' } } : {};
  const inLanguage = (entity: Shown, args: { language?: string | null }) =>
    valuesOf(entity, definition.name).filter((value) => args.language === undefined || args.language === null || value.language === args.language);
  const description = `Property "${definition.name}" (${definition.type}${definition.list ? ', list' : ''}${definition.multilingual ? ', multilingual' : ''}).`;

  // What the value type's descriptor says a value holds: several fields make a record (a file), one is the value itself.
  const record = RECORD_VALUES.get(definition.type);
  if (record) {
    return { type: many(record), description, args: languageArg, resolve: (entity, args: { language?: string | null }) => pick(inLanguage(entity, args)) };
  }
  const field = fieldsOf(definition.type)[0]!;
  // A value holding an entity id (a reference) reads as the entity, of the type its reference_query pins when it pins one.
  if (fieldDescriptorOf(field).scalar === 'id') {
    const target = (pinnedType(definition) && objectOf(pinnedType(definition)!)) || EntityInterface;
    return {
      type: many(target),
      description,
      extensions: definition.list ? pagedCost(10) : undefined,
      resolve: guarded(async (entity: Shown, _args: unknown, context: GraphqlContext) => {
        const ids = valuesOf(entity, definition.name).flatMap((value) => {
          const id = value[field];
          return typeof id === 'string' ? [id] : [];
        });
        const found = await context.loaders.entities.loadMany(ids);
        return pick(found.filter((item): item is Shown => item !== null && !(item instanceof Error)));
      }),
    };
  }
  const scalar = scalarOfField(field);
  if (definition.multilingual) {
    return {
      type: many(localized.get(scalar as GraphQLScalarType<string, string>)!),
      description,
      args: languageArg,
      resolve: (entity, args: { language?: string | null }) => pick(inLanguage(entity, args).map((value) => ({ value: value[field], language: value.language }))),
    };
  }
  return { type: many(scalar), description, resolve: (entity) => pick(valuesOf(entity, definition.name).map((value) => value[field])) };
}

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1);
const typeOrNull = (entity: Shown | null) => entity;

/**
 * The GraphQL schema of one database: an object type per entity type, a field per
 * property definition, a list field per type with the REST list semantics, and the write use cases
 * as mutations. Pure in the database's `Schema`: the cache keys it by that object, which the
 * schema cache replaces whenever a type or definition changes.
 */
export function buildGraphqlSchema(schema: Schema): BuiltSchema {
  const typeIds = [...schema.types.keys()].sort();
  // By id, in id order: two types with the same name get distinct names, the same ones every time.
  const nameOfType = uniqueGraphqlNames(typeIds, (id) => graphqlTypeName(schema.typeNames.get(id) ?? `type_${id}`), SHARED_TYPE_NAMES, ['List', 'Filter', 'Sort']);
  const idOfName = new Map([...nameOfType].map(([id, name]) => [name, id]));
  const objects = new Map<string, GraphQLObjectType<Shown, GraphqlContext>>();

  const queryFields: GraphQLFieldConfigMap<unknown, GraphqlContext> = {
    entity: {
      type: EntityInterface,
      description: 'An entity by id; null when there is none the caller may read (GET /api/{db}/entity/{id}).',
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: guarded(async (_source: unknown, args: { id: string }, context: GraphqlContext) => {
        try {
          return (await getEntity(context.tenant, existingId(args.id, 'entity'))).entity as Shown;
        } catch (error) {
          if ((error as { kind?: string }).kind === 'not-found') return null;
          throw error;
        }
      }),
    },
  };

  for (const typeId of typeIds) {
    const name = nameOfType.get(typeId)!;
    const definitions = [...schema.definitionsOf(typeId).values()].filter((definition) => !definition.secret).sort((a, b) => a.name.localeCompare(b.name));
    const fieldNames = uniqueGraphqlNames(definitions.map((definition) => definition.name), (text) => sanitiseGraphqlName(text, 'p'), SYSTEM_FIELD_NAMES);
    const object = new GraphQLObjectType<Shown, GraphqlContext>({
      name,
      description: `Entities of type "${schema.typeNames.get(typeId) ?? typeId}".`,
      interfaces: [EntityInterface],
      fields: () => ({
        ...systemFields(() => EntityInterface),
        ...Object.fromEntries(definitions.map((definition) => [fieldNames.get(definition.name)!, propertyField(definition, (id) => objects.get(id))])),
      }),
    });
    objects.set(typeId, object);

    const filterables = new Map<string, Filterable>([
      ...definitions.map((definition) => [fieldNames.get(definition.name)!, { graphqlName: fieldNames.get(definition.name)!, definition }] as const),
      ...SYSTEM_FILTERS.map((definition) => [definition.name, { graphqlName: definition.name, definition }] as const),
    ]);
    const filter = new GraphQLInputObjectType({
      name: `${name}Filter`,
      description: 'Every filter must match (REST: `<property>.<field>[.<operator>]=value`).',
      fields: Object.fromEntries([...filterables].map(([field, { definition }]) => [field, { type: TYPE_FILTERS.get(definition.type)! }])),
    });
    const sortValues = [...filterables.values()].flatMap(sortKeysOf);
    const sort = new GraphQLEnumType({ name: `${name}Sort`, values: Object.fromEntries(sortValues.map(([key, rest]) => [key, { value: rest }])) });
    const page = new GraphQLObjectType({
      name: `${name}List`,
      fields: {
        entities: { type: nonNullList(object) },
        count: { type: new GraphQLNonNull(GraphQLInt), description: 'Every match the caller may read, not only this page.' },
        limit: { type: new GraphQLNonNull(GraphQLInt) },
        skip: { type: new GraphQLNonNull(GraphQLInt) },
      },
    });
    queryFields[`${lowerFirst(name)}List`] = {
      type: new GraphQLNonNull(page),
      description: `Entities of type "${schema.typeNames.get(typeId) ?? typeId}" the caller may read, filtered, sorted and paged as GET /api/{db}/entity.`,
      args: {
        filter: { type: filter },
        q: { type: GraphQLString, description: 'Search the searchable properties (word prefixes).' },
        sort: { type: new GraphQLList(new GraphQLNonNull(sort)) },
        limit: { type: GraphQLInt, description: `0 to 1000; default ${DEFAULT_LIMIT}.` },
        skip: { type: GraphQLInt },
      },
      extensions: pagedCost(DEFAULT_LIMIT),
      resolve: guarded((_source: unknown, args: ListArgs, context: GraphqlContext) =>
        listEntities(context.deps, context.tenant, listQueryOfArgs(typeId, filterables, args)),
      ),
    };
  }

  const idArg = { id: { type: new GraphQLNonNull(GraphQLID) } };
  const valuesArg = { values: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(ValueInput))) } };
  const written = (context: GraphqlContext, id: string) => context.loaders.entities.clear(id);
  const mutationFields: GraphQLFieldConfigMap<unknown, GraphqlContext> = {
    create: {
      type: new GraphQLNonNull(WriteResult),
      description: 'POST /api/{db}/entity: create an entity from its values; `_type` is required.',
      args: valuesArg,
      resolve: guarded((_s: unknown, args: { values: Record<string, unknown>[] }, context: GraphqlContext) => createEntity(context.deps, context.tenant, valuesInput(args.values))),
    },
    addValues: {
      type: new GraphQLNonNull(WriteResult),
      description: 'POST /api/{db}/entity/{id}: add values, or overwrite those named by `_id`; all or nothing.',
      args: { ...idArg, ...valuesArg },
      resolve: guarded(async (_s: unknown, args: { id: string; values: Record<string, unknown>[] }, context: GraphqlContext) => {
        written(context, args.id);
        return addValues(context.deps, context.tenant, existingId(args.id, 'entity'), valuesInput(args.values));
      }),
    },
    deleteValue: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'DELETE /api/{db}/property/{id}.',
      args: idArg,
      resolve: guarded(async (_s: unknown, args: { id: string }, context: GraphqlContext) => (await deleteValue(context.deps, context.tenant, existingId(args.id, 'property'))).deleted),
    },
    deleteEntity: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: 'DELETE /api/{db}/entity/{id} (owner only).',
      args: idArg,
      resolve: guarded(async (_s: unknown, args: { id: string }, context: GraphqlContext) => {
        written(context, args.id);
        return (await deleteEntity(context.deps, context.tenant, existingId(args.id, 'entity'))).deleted;
      }),
    },
    duplicate: {
      type: nonNullList(WriteResult),
      description: 'POST /api/{db}/entity/{id}/duplicate.',
      args: {
        ...idArg,
        count: { type: GraphQLInt, defaultValue: 1, description: `1 to ${MAX_DUPLICATES}.` },
        ignoredProperties: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)), defaultValue: [] },
      },
      resolve: guarded(async (_s: unknown, args: { id: string; count: number; ignoredProperties: string[] }, context: GraphqlContext) => {
        if (args.ignoredProperties.length > 200) throw invalid('At most 200 ignoredProperties.', [{ parameter: 'ignoredProperties', message: 'at most 200' }]);
        return (await duplicateEntity(context.deps, context.tenant, existingId(args.id, 'entity'), { count: args.count, ignoredProperties: args.ignoredProperties })).entities;
      }),
    },
    aggregate: {
      type: EntityInterface,
      description: 'POST /api/{db}/entity/{id}/aggregate: recompute its formulas and inherited rights now.',
      args: idArg,
      resolve: guarded(async (_s: unknown, args: { id: string }, context: GraphqlContext) => {
        written(context, args.id);
        return typeOrNull((await aggregateEntity(context.deps, context.tenant, existingId(args.id, 'entity'))).entity as Shown);
      }),
    },
  };

  const graphqlSchema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: queryFields }),
    mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutationFields }),
    types: [OtherEntity, ...objects.values()],
  });
  return {
    schema: graphqlSchema,
    naming: {
      objectOf: (typeId) => (typeId !== undefined && nameOfType.has(typeId) ? nameOfType.get(typeId)! : OtherEntity.name),
      typeIdOf: (name) => idOfName.get(name),
    },
  };
}
