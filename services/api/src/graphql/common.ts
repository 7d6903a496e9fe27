import { FIELD_DESCRIPTORS, OPERATORS_OF, OPERATOR_TABLE, VALUE_DESCRIPTORS, fieldDescriptorOf, fieldsOf, type FilterField, type OperandKind, type ScalarKind, type ValueType } from '@entia/domain';
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLInputType,
  type GraphQLScalarType,
} from 'graphql';

/**
 * The types every database's schema shares (values, writes, history, filter inputs). graphql-js
 * lets one type instance appear in many schemas, so they are built once per process.
 */
const list = <T extends GraphQLInputType>(type: T) => new GraphQLList(new GraphQLNonNull(type));

/** The GraphQL scalar of each scalar kind a value field declares (numbers are floats; dates and datetimes strings as on the wire). */
const SCALARS: Record<ScalarKind, GraphQLScalarType> = {
  string: GraphQLString,
  date: GraphQLString,
  datetime: GraphQLString,
  number: GraphQLFloat,
  boolean: GraphQLBoolean,
  id: GraphQLID,
};

/** The GraphQL scalar of a value field, as its descriptor says it reads. */
export function scalarOfField(field: FilterField): GraphQLScalarType {
  return SCALARS[fieldDescriptorOf(field).scalar];
}

export const Created = new GraphQLObjectType({
  name: 'Created',
  fields: { at: { type: GraphQLString }, by: { type: GraphQLID } },
});

const Header = new GraphQLObjectType({ name: 'Header', fields: { name: { type: new GraphQLNonNull(GraphQLString) }, value: { type: new GraphQLNonNull(GraphQLString) } } });

const UploadTarget = new GraphQLObjectType<{ url: string; method: string; headers: Record<string, string> }>({
  name: 'UploadTarget',
  description: 'Where to PUT a file value\'s bytes right after writing it, with exactly these headers.',
  fields: {
    url: { type: new GraphQLNonNull(GraphQLString) },
    method: { type: new GraphQLNonNull(GraphQLString) },
    headers: { type: new GraphQLNonNull(list(Header as never)), resolve: (target) => Object.entries(target.headers).map(([name, value]) => ({ name, value })) },
  },
});

/** One value as the REST API returns it (`type` is the property name). */
export const ValueType_ = new GraphQLObjectType({
  name: 'Value',
  fields: {
    _id: { type: new GraphQLNonNull(GraphQLID) },
    type: { type: new GraphQLNonNull(GraphQLString), description: 'The property name.' },
    ...Object.fromEntries(FIELD_DESCRIPTORS.map((field) => [field.name, { type: scalarOfField(field.name) }])),
    language: { type: GraphQLString },
    inherited: { type: GraphQLBoolean },
    created: { type: Created },
    upload: { type: UploadTarget, description: 'File values just written: where to PUT the bytes.' },
  },
});

// One flat list whichever REST answer it comes from: a create's values by property, or an add's (already a list, in request order).
export const WriteResult = new GraphQLObjectType<{ _id: string; properties: Record<string, unknown[]> | unknown[] }>({
  name: 'WriteResult',
  description: 'The values a write created or changed (adding values: in the order they were sent).',
  fields: {
    _id: { type: new GraphQLNonNull(GraphQLID) },
    values: {
      type: new GraphQLNonNull(list(ValueType_ as never)),
      resolve: (written) => (Array.isArray(written.properties) ? written.properties : Object.values(written.properties).flat()),
    },
  },
});

export const Change = new GraphQLObjectType({
  name: 'Change',
  fields: {
    type: { type: new GraphQLNonNull(GraphQLString), description: 'The property changed, or `_created` / `_deleted`.' },
    at: { type: new GraphQLNonNull(GraphQLString) },
    by: { type: GraphQLID, description: 'The person; null for a change the worker made.' },
    worker: { type: GraphQLBoolean },
    old: { type: ValueType_ },
    new: { type: ValueType_ },
  },
});

export const History = new GraphQLObjectType({
  name: 'History',
  fields: { changes: { type: new GraphQLNonNull(list(Change as never)) }, count: { type: new GraphQLNonNull(GraphQLInt) } },
});

/** A value to write, as in the REST body (`type` names the property). */
export const ValueInput = new GraphQLInputObjectType({
  name: 'ValueInput',
  fields: {
    type: { type: new GraphQLNonNull(GraphQLString) },
    _id: { type: GraphQLID, description: 'Overwrite this value instead of adding one.' },
    ...Object.fromEntries(FIELD_DESCRIPTORS.map((field) => [field.name, { type: scalarOfField(field.name) }])),
    language: { type: GraphQLString },
  },
});

/** The input field of an operator, by its operand's kind (`OPERATOR_TABLE`), for a field of GraphQL type `scalar`. */
const OPERAND_INPUTS: { readonly [K in OperandKind]: (scalar: GraphQLScalarType) => { type: GraphQLInputType; description?: string } } = {
  scalar: (scalar) => ({ type: scalar }),
  list: (scalar) => ({ type: list(scalar) }),
  boolean: () => ({ type: GraphQLBoolean }),
  pattern: () => ({ type: GraphQLString, description: '/pattern/flags, as in REST' }),
};

/** The operators of one value field (SPEC §7), each an input field: `{ gte: 200, lt: 500 }`. */
export const FIELD_FILTERS = new Map(
  FIELD_DESCRIPTORS.map((field) => {
    const scalar = scalarOfField(field.name);
    const name = `${field.name[0]!.toUpperCase()}${field.name.slice(1)}FieldFilter`;
    const fields = Object.fromEntries(OPERATORS_OF[field.name].map((op) => [op, OPERAND_INPUTS[OPERATOR_TABLE[op].operand](scalar)]));
    return [field.name, new GraphQLInputObjectType({ name, fields })] as const;
  }),
);

/** The object type of a value type whose values are records of several fields (a file's: `FileValue`). */
export const recordTypeName = (type: ValueType) => `${type[0]!.toUpperCase()}${type.slice(1)}Value`;

/** A property's filter input: its field's operators, or (records: files) one entry per field. */
export const TYPE_FILTERS = new Map<ValueType, GraphQLInputObjectType>(
  VALUE_DESCRIPTORS.map((descriptor) => {
    const fields = fieldsOf(descriptor.type);
    if (fields.length === 1) return [descriptor.type, FIELD_FILTERS.get(fields[0]!)!] as const;
    const name = `${recordTypeName(descriptor.type)}Filter`;
    return [descriptor.type, new GraphQLInputObjectType({ name, fields: Object.fromEntries(fields.map((field) => [field, { type: FIELD_FILTERS.get(field)! }])) })] as const;
  }),
);

/** Names the shared types take: no database type may be given one of them. */
export const SHARED_TYPE_NAMES = ['Query', 'Mutation', 'Entity', 'OtherEntity', 'Value', 'Created', 'Header', 'UploadTarget', 'WriteResult', 'Change', 'History', 'ValueInput',
  ...VALUE_DESCRIPTORS.filter((descriptor) => descriptor.fields.length > 1).map((descriptor) => recordTypeName(descriptor.type)),
  ...[...FIELD_FILTERS.values(), ...TYPE_FILTERS.values()].map((type) => type.name),
  'LocalizedString', 'LocalizedFloat', 'LocalizedBoolean', 'LocalizedID',
  'String', 'Float', 'Int', 'Boolean', 'ID'];
