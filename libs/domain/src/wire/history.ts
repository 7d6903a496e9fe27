import { Type } from '@sinclair/typebox';
import { ObjectIdSchema } from './identifiers';
import { StoredValueSchema } from './value';

/** One change of an entity, as `GET /api/{db}/entity/{id}/history` shows it. */
export const ChangeSchema = Type.Object({
  type: Type.String({ description: 'The property changed, or `_created` / `_deleted` for the entity itself.' }),
  at: Type.String({ format: 'date-time' }),
  by: Type.Union([ObjectIdSchema, Type.Null()], { description: 'The person; null for a change the worker made.' }),
  worker: Type.Optional(Type.Literal(true, { description: 'Present when the worker made the change (a recomputed formula, inherited rights).' })),
  old: Type.Optional(StoredValueSchema),
  new: Type.Optional(StoredValueSchema),
});

/** One page of an entity's history, newest first; `count` is every change recorded. */
export const HistorySchema = Type.Object({
  changes: Type.Array(ChangeSchema),
  count: Type.Integer(),
});
