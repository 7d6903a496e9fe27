import { DEFAULT_LIMIT, MAX_LIMIT, RIGHT_PROPERTIES, VALUE_DESCRIPTORS, invalid, referencesOf, type Properties, type Value, type ValueType } from '@entia/domain';
import { entityHistory, getValue } from '@entia/entities';
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType,
} from 'graphql';
import { Created, History, recordTypeName, scalarOfField } from './common';
import type { GraphqlContext } from './context';
import { guarded } from './errors';
import type { Relation, Shown } from './loaders';

/** Reverse relations answer this many per entity unless `limit` says otherwise. */
export const RELATED_DEFAULT_LIMIT = 20;

export const nonNullList = (type: GraphQLOutputType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));

export const valuesOf = (entity: Shown, property: string): Value[] => (entity[property] as Value[] | undefined) ?? [];
const propertiesOf = (entity: Shown) => entity as unknown as Properties;

function bounded(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw invalid(`${name} must be a whole number from 0 to ${max}.`, [{ parameter: name, message: `must be from 0 to ${max}` }]);
  return value;
}

/** The entities of a reverse relation the caller may read, of the type named (a GraphQL type name) if any. */
async function related(relation: Relation, entity: Shown, args: { type?: string | null }, context: GraphqlContext): Promise<Shown[]> {
  let typeId: string | undefined;
  if (args.type !== undefined && args.type !== null) {
    typeId = context.naming.typeIdOf(args.type);
    if (typeId === undefined) throw invalid(`No type ${args.type} in this database.`, [{ parameter: 'type', message: 'not a type of this database' }]);
  }
  return context.loaders.relatedTo(relation, entity._id, typeId);
}

/** A list field costs its page size times what one entry costs (graphql-query-complexity). */
export const pagedCost = (fallback: number) => ({
  complexity: ({ args, childComplexity }: { args: { limit?: number | null }; childComplexity: number }) => 1 + childComplexity * (args.limit ?? fallback),
});

/**
 * The fields every entity has, whatever its type (SPEC §2 system properties, rights, reverse
 * relations, history). The `Entity` interface and every object type share them.
 */
export function systemFields(entity: () => GraphQLInterfaceType): GraphQLFieldConfigMap<Shown, GraphqlContext> {
  const relationArgs = { type: { type: GraphQLString, description: 'Only entities of this type (its GraphQL name).' }, limit: { type: GraphQLInt, defaultValue: RELATED_DEFAULT_LIMIT } };
  const relation = (name: Relation, description: string) => ({
    type: nonNullList(entity()),
    description,
    args: relationArgs,
    extensions: pagedCost(RELATED_DEFAULT_LIMIT),
    resolve: guarded(async (source: Shown, args: { type?: string | null; limit: number }, context: GraphqlContext) =>
      (await related(name, source, args, context)).slice(0, bounded('limit', args.limit, MAX_LIMIT)),
    ),
  });
  const count = (name: Relation, description: string) => ({
    type: new GraphQLNonNull(GraphQLInt),
    description,
    args: { type: relationArgs.type },
    resolve: guarded(async (source: Shown, args: { type?: string | null }, context: GraphqlContext) => (await related(name, source, args, context)).length),
  });
  return {
    _id: { type: new GraphQLNonNull(GraphQLID) },
    _type: { type: GraphQLString, description: 'The name of its type.', resolve: (source, _args, context) => context.schema.typeNames.get(referencesOf(propertiesOf(source), '_type')[0] ?? '') ?? null },
    _typeId: { type: GraphQLID, resolve: (source) => referencesOf(propertiesOf(source), '_type')[0] ?? null },
    _created: { type: Created, resolve: (source) => valuesOf(source, '_created')[0]?.created ?? null },
    _sharing: { type: GraphQLString, description: 'private, domain or public.', resolve: (source) => valuesOf(source, '_sharing')[0]?.string ?? null },
    ...Object.fromEntries(
      RIGHT_PROPERTIES.map((right) => [right, { type: nonNullList(GraphQLID), description: `The persons holding the ${right.slice(1)} right.`, resolve: (source: Shown) => referencesOf(propertiesOf(source), right) }]),
    ),
    _parent: {
      type: nonNullList(entity()),
      description: 'Its parents the caller may read.',
      resolve: guarded(async (source: Shown, _args: unknown, context: GraphqlContext) => loadAll(context, referencesOf(propertiesOf(source), '_parent'))),
    },
    _children: relation('children', 'Entities whose `_parent` is this one, that the caller may read.'),
    _childCount: count('children', 'How many `_children` the caller may read.'),
    _referrers: relation('referrers', 'Entities holding a reference to this one, that the caller may read.'),
    _referrerCount: count('referrers', 'How many `_referrers` the caller may read.'),
    history: {
      type: History,
      description: 'Its recorded changes, newest first (GET /api/{db}/entity/{id}/history).',
      args: { limit: { type: GraphQLInt, defaultValue: DEFAULT_LIMIT }, skip: { type: GraphQLInt, defaultValue: 0 } },
      extensions: pagedCost(DEFAULT_LIMIT),
      resolve: guarded((source: Shown, args: { limit: number; skip: number }, context: GraphqlContext) =>
        entityHistory(context.deps, context.tenant, source._id, bounded('limit', args.limit, MAX_LIMIT), bounded('skip', args.skip, 10_000_000)),
      ),
    },
  };
}

/** The readable entities among `ids`, in order (through the per-request loader). */
export async function loadAll(context: GraphqlContext, ids: readonly string[]): Promise<Shown[]> {
  const found = await context.loaders.entities.loadMany(ids);
  return found.filter((entity): entity is Shown => entity !== null && !(entity instanceof Error));
}

/** Every entity, whatever its type: references without a pinned target type resolve to it. */
export const EntityInterface: GraphQLInterfaceType = new GraphQLInterfaceType({
  name: 'Entity',
  fields: () => systemFields(() => EntityInterface),
  resolveType: (source: Shown, context: GraphqlContext) => context.naming.objectOf(referencesOf(propertiesOf(source), '_type')[0]),
});

/** An entity whose type is not one of the database's types (a type entity, a definition). */
export const OtherEntity = new GraphQLObjectType<Shown, GraphqlContext>({
  name: 'OtherEntity',
  interfaces: [EntityInterface],
  fields: () => systemFields(() => EntityInterface),
});

/**
 * The object of each value type whose values are records of several fields (a file: `FileValue`),
 * from its descriptor: the value's id, its fields, its language and, for values whose bytes are
 * uploaded, a download URL signed when asked for (GET /api/{db}/property/{id}).
 */
export const RECORD_VALUES: ReadonlyMap<ValueType, GraphQLObjectType<Value, GraphqlContext>> = new Map(
  VALUE_DESCRIPTORS.filter((descriptor) => descriptor.fields.length > 1).map((descriptor) => [
    descriptor.type,
    new GraphQLObjectType<Value, GraphqlContext>({
      name: recordTypeName(descriptor.type),
      fields: {
        _id: { type: new GraphQLNonNull(GraphQLID) },
        ...Object.fromEntries(descriptor.fields.map((field) => [field.name, { type: scalarOfField(field.name) }])),
        language: { type: GraphQLString },
        ...(descriptor.input === 'upload'
          ? {
              url: {
                type: GraphQLString,
                description: 'A signed download URL, valid 60 s.',
                resolve: guarded(async (value: Value, _args: unknown, context: GraphqlContext) => (await getValue(context.deps, context.tenant, value._id)).url ?? null),
              },
            }
          : {}),
      },
    }),
  ]),
);

/** A multilingual value of a scalar type: the value and its language. */
export const localized = new Map(
  [GraphQLString, GraphQLFloat, GraphQLBoolean, GraphQLID].map((scalar) => [
    scalar,
    new GraphQLObjectType<Value>({
      name: `Localized${scalar.name}`,
      fields: { value: { type: scalar }, language: { type: GraphQLString } },
    }),
  ]),
);
