import { Type } from '@sinclair/typebox';
import { CHANGE_KINDS } from '../changes/record';
import { ObjectIdSchema } from './identifiers';
import { EntitySchema } from './entity';

/**
 * One change of an entity as the change feed (`GET /api/{db}/changes`) and webhooks deliver it.
 * `id` orders the events of a database and is what `Last-Event-ID` resumes after.
 */
export const ChangeEventSchema = Type.Object({
  id: Type.String({ description: 'The event id: resume after it with `Last-Event-ID`.' }),
  db: Type.String(),
  entity: ObjectIdSchema,
  type: Type.String({ description: 'The entity\'s `_type`.' }),
  kind: Type.Union(
    CHANGE_KINDS.map((kind) => Type.Literal(kind)),
    { description: '`created`, `updated` (values changed: see `properties`) or `deleted`.' },
  ),
  version: Type.Integer({ minimum: 1, description: 'The entity\'s version after the change: an entity\'s events have increasing versions, not always consecutive (the worker\'s own writes of the document count too).' }),
  at: Type.String({ format: 'date-time' }),
  by: Type.Union([ObjectIdSchema, Type.Null()], { description: 'The person; null when the worker made the change (a formula, a label, inherited rights).' }),
  worker: Type.Optional(Type.Literal(true)),
  inView: Type.Boolean({
    description:
      'true: the entity, as the change left it, is readable by the subscriber and matches its filter. false: it was before, not after (deleted, left the filter, or the right to read it was removed); no values nor property names are given then.',
  }),
  properties: Type.Array(Type.String(), { description: 'Names of the properties whose values changed (empty when `inView` is false).' }),
  values: Type.Optional(EntitySchema),
});
