import { Type, type Static } from '@sinclair/typebox';
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

/** Answer to creating an entity or adding values: the values created or overwritten, by property. */
export const WriteResultSchema = Type.Object({
  _id: ObjectIdSchema,
  properties: Type.Record(Type.String(), Type.Array(ValueSchema), { description: 'The values created or overwritten, by property.' }),
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
});

export const DeletedSchema = Type.Object({ deleted: Type.Literal(true) });
