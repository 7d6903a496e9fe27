import { Type } from '@sinclair/typebox';

/** Request and response shapes of the entity endpoints: what the router validates and OpenAPI shows. */

export const ObjectIdString = Type.String({ pattern: '^[0-9a-f]{24}$', description: 'An id: 24 hexadecimal characters.' });

const PropertyName = Type.String({ pattern: '^_?[A-Za-z][A-Za-z0-9_]{0,63}$', description: 'The property name.' });

/** One value to write (interface §4.1); which value field is right is decided by the definition. */
export const ValueInput = Type.Object(
  {
    type: PropertyName,
    _id: Type.Optional(ObjectIdString),
    string: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    number: Type.Optional(Type.Number()),
    boolean: Type.Optional(Type.Boolean()),
    date: Type.Optional(Type.String({ maxLength: 10 })),
    datetime: Type.Optional(Type.String({ maxLength: 40 })),
    reference: Type.Optional(ObjectIdString),
    filename: Type.Optional(Type.String({ maxLength: 255 })),
    filesize: Type.Optional(Type.Integer()),
    filetype: Type.Optional(Type.String({ maxLength: 255 })),
    language: Type.Optional(Type.String({ maxLength: 35 })),
  },
  { additionalProperties: false },
);

export const ValuesBody = Type.Array(ValueInput, { minItems: 1, maxItems: 1000, description: 'Values to write, all or nothing.' });

export const Value = Type.Object(
  {
    _id: ObjectIdString,
    type: Type.String(),
    string: Type.Optional(Type.String()),
    number: Type.Optional(Type.Number()),
    boolean: Type.Optional(Type.Boolean()),
    date: Type.Optional(Type.String({ format: 'date' })),
    datetime: Type.Optional(Type.String({ format: 'date-time' })),
    reference: Type.Optional(ObjectIdString),
    filename: Type.Optional(Type.String()),
    filesize: Type.Optional(Type.Integer()),
    filetype: Type.Optional(Type.String()),
    language: Type.Optional(Type.String()),
    created: Type.Object({ at: Type.String({ format: 'date-time' }), by: ObjectIdString }),
    upload: Type.Optional(
      Type.Object(
        {
          url: Type.String(),
          method: Type.Literal('PUT'),
          headers: Type.Object({
            ACL: Type.String(),
            'Content-Disposition': Type.String(),
            'Content-Length': Type.String(),
            'Content-Type': Type.String(),
          }),
        },
        { description: 'File values just written: PUT the bytes to `url` with exactly these headers.' },
      ),
    ),
    url: Type.Optional(Type.String({ description: 'File values read by id: a signed download URL, valid 60 s.' })),
  },
  { additionalProperties: false },
);

export const EntityBody = Type.Object({ _id: ObjectIdString }, { additionalProperties: Type.Array(Value), description: 'Property name → values.' });

export const WriteResponse = Type.Object({
  _id: ObjectIdString,
  properties: Type.Record(Type.String(), Type.Array(Value), { description: 'The values created or overwritten, by property.' }),
});

export const Deleted = Type.Object({ deleted: Type.Literal(true) });

export const PropsQuery = Type.Object(
  {
    props: Type.Optional(
      Type.String({
        pattern: '^_?[A-Za-z][A-Za-z0-9_]{0,63}(,_?[A-Za-z][A-Za-z0-9_]{0,63}){0,99}$',
        description: 'Comma-separated property names to return (with _id); _created may be named.',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * Path parameters are not pattern-checked here: a malformed id or database name in a path cannot
 * exist, so it is a 404 from the handler (SPEC §2), not a 400.
 */
export const DbPath = Type.Object({ db: Type.String({ description: 'Database name.' }) });
export const DbIdPath = Type.Object({
  db: Type.String({ description: 'Database name.' }),
  id: Type.String({ description: 'Entity or value id (24 hexadecimal characters).' }),
});

/**
 * GET /api/{db}/entity. Every parameter is a string here; their grammar (filters, sort, limits) is
 * the domain parser's, which names the offending parameter. A parameter given twice is refused.
 */
export const ListQuery = Type.Object(
  {
    sort: Type.Optional(Type.String({ description: 'Comma-separated `<property>.<type>`, `-` for descending; ties by `_id`.' })),
    limit: Type.Optional(Type.String({ description: 'Page size, 0…1000 (default 100; 0 returns only `count`).' })),
    skip: Type.Optional(Type.String({ description: 'Matches to skip, ≥ 0.' })),
    q: Type.Optional(Type.String({ maxLength: 1000, description: 'Search terms; each must begin a word of a searchable value.' })),
    props: Type.Optional(Type.String({ description: 'Comma-separated property names to return (with `_id`).' })),
  },
  {
    additionalProperties: Type.String({ maxLength: 20_000 }),
    description: 'Filters: `<property>.<type>[.<operator>]=<value>`, operators eq (none), ne, gt, gte, lt, lte, in, exists, regex.',
  },
);

export const DownloadQuery = Type.Object(
  { download: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: '`true`: answer 302 to the file.' })) },
  { additionalProperties: false },
);
