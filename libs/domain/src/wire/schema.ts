import { Type, type Static } from '@sinclair/typebox';
import { PROPERTY_NAME_PATTERN } from '../names';
import { INPUT_KINDS, SCALAR_KINDS } from '../values/descriptor';
import { VALUE_TYPES, optionSchemas } from '../values/registry';
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
  ...optionSchemas(),
  fields: Type.Array(
    Type.Object({
      name: Type.String({ description: 'The value field (`string`, `number`, `reference`, `filename`…).' }),
      scalar: Type.Union(SCALAR_KINDS.map((kind) => Type.Literal(kind)), {
        description: 'What it reads as: `string`, `number`, `boolean`, `id` (an entity id), `date` (`YYYY-MM-DD`) or `datetime` (ISO 8601 text).',
      }),
    }),
    {
      description:
        'The field(s) a value of this type holds, as its value type says: one field is the value itself (a `url` is its `string`), several make it a record (a file). What a client reads and writes, whether or not it knows the type.',
    },
  ),
  input: Type.Union(INPUT_KINDS.map((kind) => Type.Literal(kind)), {
    description: 'How a client adds a value: `value` (its field as given), `upload` (a file: its metadata, then the bytes), `counter` (`{"counter": 1}`; the server numbers it).',
  }),
});

/** One type (an entity of the meta-type `entity`) with the definitions the caller may read. */
export const TypeDescriptionSchema = Type.Object({
  _id: ObjectIdSchema,
  name: Type.String({ description: 'The type\'s `name`.' }),
  properties: Type.Array(PropertyDescriptionSchema, { description: 'By `ordinal` (definitions without one last), then name.' }),
});

/** The answer of `GET /api/{db}/schema`: the types and definitions the caller may read. */
export const DatabaseSchemaSchema = Type.Object({
  types: Type.Array(TypeDescriptionSchema, { description: 'By name, then `_id`.' }),
});

export type PropertyDescription = Static<typeof PropertyDescriptionSchema>;
export type TypeDescription = Static<typeof TypeDescriptionSchema>;
export type DatabaseSchema = Static<typeof DatabaseSchemaSchema>;
