import { Type, type Static } from '@sinclair/typebox';
import { PROPERTY_NAME_PATTERN } from '../names';
import { VALUE_TYPES } from '../values/registry';
import { ObjectIdSchema } from './identifiers';

/** One property definition of a type, as `GET /api/{db}/schema` describes it (SPEC §5). */
export const PropertyDescriptionSchema = Type.Object({
  _id: ObjectIdSchema,
  name: Type.String({ pattern: PROPERTY_NAME_PATTERN, description: 'The property name (never a system property `_…`).' }),
  type: Type.Union(VALUE_TYPES.map((type) => Type.Literal(type)), { description: 'The value type (SPEC §3).' }),
  list: Type.Boolean({ description: 'Values are added beside the others (else a POST without `_id` replaces the value).' }),
  multilingual: Type.Boolean({ description: 'Every value carries a `language`.' }),
  search: Type.Boolean({ description: 'Values are searched by `q`.' }),
  mandatory: Type.Boolean({ description: 'Required when an entity of the type is created.' }),
  readonly: Type.Boolean({ description: 'Values cannot be written after creation.' }),
  formula: Type.Optional(Type.String({ description: 'The formula computing the property (clients cannot write it); only when defined.' })),
  reference_query: Type.Optional(Type.String({ description: 'The filter a reference value must match; only when defined.' })),
});

/** One type (an entity of the meta-type `entity`) with the definitions the caller may read. */
export const TypeDescriptionSchema = Type.Object({
  _id: ObjectIdSchema,
  name: Type.String({ description: 'The type\'s `name`.' }),
  properties: Type.Array(PropertyDescriptionSchema, { description: 'By `ordinal` (definitions without one last), then name.' }),
});

/** The answer of `GET /api/{db}/schema` (issue 19): the types and definitions the caller may read. */
export const DatabaseSchemaSchema = Type.Object({
  types: Type.Array(TypeDescriptionSchema, { description: 'By name, then `_id`.' }),
});

export type PropertyDescription = Static<typeof PropertyDescriptionSchema>;
export type TypeDescription = Static<typeof TypeDescriptionSchema>;
export type DatabaseSchema = Static<typeof DatabaseSchemaSchema>;
