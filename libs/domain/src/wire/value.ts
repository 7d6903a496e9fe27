import { Type, type Static } from '@sinclair/typebox';
import { fieldSchemas } from '../values/registry';
import { ObjectIdSchema, PropertyNameSchema } from './identifiers';

/**
 * A value as a client writes it (interface §4.1): `type` names the property, the definition decides
 * which value field is right. The value fields come from the registered value types. The lengths bound the request; the value rules bound the content.
 */
export const ValueInputSchema = Type.Object(
  {
    type: PropertyNameSchema,
    _id: Type.Optional(ObjectIdSchema),
    ...fieldSchemas('input'),
    language: Type.Optional(Type.String({ maxLength: 35 })),
    counter: Type.Optional(Type.Number({ description: 'On a counter property: the step to its next number (1); the server sets the value.' })),
  },
  { additionalProperties: false },
);

/** Where to PUT a file's bytes right after creating its value (SPEC §8). */
export const UploadTargetSchema = Type.Object(
  {
    url: Type.String(),
    method: Type.Literal('PUT'),
    // The schema names the four signed headers; a client passes them on as a map, whatever they are.
    headers: Type.Unsafe<Record<string, string>>(
      Type.Object({
        ACL: Type.String(),
        'Content-Disposition': Type.String(),
        'Content-Length': Type.String(),
        'Content-Type': Type.String(),
      }),
    ),
  },
  { description: 'File values just written: PUT the bytes to `url` with exactly these headers.' },
);

/**
 * A value as stored (interface §2.2): the domain's `Value`. `inherited` marks a right value copied
 * from a `_parent` by `_inheritrights` (kept by the worker, not writable).
 */
export const StoredValueSchema = Type.Object(
  {
    _id: ObjectIdSchema,
    type: Type.String(),
    ...fieldSchemas('output'),
    language: Type.Optional(Type.String()),
    inherited: Type.Optional(Type.Literal(true, { description: 'On a right value: copied from a `_parent` by `_inheritrights`; not writable.' })),
    property_type: Type.Optional(
      Type.String({
        description:
          'On a `_reference` value: the property the reference is in. On a right a higher one implies (an owner listed under `_editor`): the property the value is stored in (its `_id` is that value\'s).',
      }),
    ),
    entity_type: Type.Optional(Type.String({ description: 'On a `_reference` value: the name of the referenced entity\'s type.' })),
    created: Type.Object({ at: Type.String({ format: 'date-time' }), by: ObjectIdSchema }),
  },
  { additionalProperties: false },
);
export type StoredValue = Static<typeof StoredValueSchema>;

/** A value as the API returns it: as stored, plus what a file value's answer adds. */
export const ValueSchema = Type.Object(
  {
    ...StoredValueSchema.properties,
    upload: Type.Optional(UploadTargetSchema),
    url: Type.Optional(
      Type.String({ description: 'File values read by id: a signed download URL, valid 60 s. An invitation answered without SMTP_URL: its link (with APP_URL set).' }),
    ),
    email: Type.Optional(Type.String({ description: 'An invitation (`entu_user`): the e-mail it goes to.' })),
    invite: Type.Optional(
      Type.String({ description: 'An invitation (`entu_user`): its token, this once, when there is no SMTP_URL; `***` when it was e-mailed.' }),
    ),
  },
  { additionalProperties: false },
);
