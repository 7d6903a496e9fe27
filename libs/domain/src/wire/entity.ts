import { Type, type Static } from '@sinclair/typebox';
import { fieldSchemas } from '../values/registry';
import { ObjectIdSchema } from './identifiers';
import { ValueSchema } from './value';

/** An entity as returned (interface §2.1): `_id`, and one array of values per property name. */
export interface EntityShape {
  _id: string;
  [property: string]: Static<typeof ValueSchema>[] | string;
}

// `Static` does not read `additionalProperties`, so the entity's type is stated beside its schema.
export const EntitySchema = Type.Unsafe<EntityShape>(
  Type.Object({ _id: ObjectIdSchema }, { additionalProperties: Type.Array(ValueSchema), description: 'Property name → values.' }),
);

/** Answer to creating an entity (and each copy a duplicate makes): the values it was created with, by property. */
export const WriteResultSchema = Type.Object({
  _id: ObjectIdSchema,
  properties: Type.Record(Type.String(), Type.Array(ValueSchema), { description: 'The values created, by property.' }),
});

/**
 * Answer to adding values (`POST /api/{db}/entity/<id>`), in the shape of Entu's API, which its
 * own client reads (`properties.find(v => v.type === name)`): the values created or overwritten as
 * one array, in the order of the request, each naming its property in `type`.
 */
export const AddedValuesSchema = Type.Object({
  _id: ObjectIdSchema,
  properties: Type.Array(ValueSchema, {
    description:
      'The values created or overwritten, in the order of the request (then any value of a formula of the entity that changed), each naming its property in `type`; a new file value carries `upload`, a generated API key its plaintext `string` (this once).',
  }),
});

/**
 * One page of `GET /api/{db}/entity`; `count` is every match, not just this page (absent with
 * `count=none`); `next`, when more matches follow, is the cursor to pass as `after` for them.
 */
export const EntityListSchema = Type.Object({
  entities: Type.Array(EntitySchema),
  count: Type.Optional(Type.Integer({ description: 'Every match, not only this page; absent with `count=none`.' })),
  limit: Type.Integer(),
  skip: Type.Integer(),
  next: Type.Optional(
    Type.String({ description: 'Present when more matches follow this page: pass it as `after` (with the same filters, sort and q) for the next page.' }),
  ),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'What to know of this answer: `q` on types with no searchable property (it then matches nothing); a sort no index serves (the database has the most sort indexes it gets).' })),
});

/** A value as a grouped row shows it (`group=`): its property, the fields grouped by and, for a reference, its label. */
export const GroupedValueSchema = Type.Object({ type: Type.String(), ...fieldSchemas('output') }, { additionalProperties: false });

/** One row of a grouped list: the grouped properties' values its matches share, and how many they are. */
export const GroupRowSchema = Type.Object(
  { _count: Type.Integer({ minimum: 1, description: 'How many matches share these values.' }) },
  { additionalProperties: Type.Array(GroupedValueSchema), description: 'Grouped property name → the values the group shares; `_count`.' },
);

/**
 * A page of `GET /api/{db}/entity?group=…` (Entu's shape): one row per distinct combination of the
 * grouped keys' values; `count` is every row, not only this page (absent with `count=none`).
 */
export const GroupedListSchema = Type.Object({
  entities: Type.Array(GroupRowSchema),
  count: Type.Optional(Type.Integer({ description: 'Every row (group), not only this page; absent with `count=none`.' })),
  limit: Type.Integer(),
  skip: Type.Integer(),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'As in a list: `q` on types with no searchable property.' })),
});

export const DeletedSchema = Type.Object({ deleted: Type.Literal(true) });
