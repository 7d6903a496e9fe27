import {
  ANY_PROPERTY_NAME_PATTERN,
  DATABASE_NAME_PATTERN,
  DEFAULT_LIMIT,
  FILTER_KEY_PATTERN,
  MAX_IN,
  MAX_LIMIT,
  MAX_REGEX,
  MAX_SKIP,
  OBJECT_ID_PATTERN,
  OPERATORS_OF,
  propertyListPattern,
} from '@entia/domain';
import { Type } from '@sinclair/typebox';

/** Request and response shapes of the entity endpoints: what the router validates and OpenAPI shows. */

export const ObjectIdString = Type.String({ pattern: OBJECT_ID_PATTERN, description: 'An id: 24 hexadecimal characters.' });

/** `{db}`: SPEC §2's names, minus the reserved ones; the service's control database is also refused (404). */
export const DatabaseName = Type.String({
  pattern: DATABASE_NAME_PATTERN,
  description:
    'Database name: 3 to 63 characters, a lowercase letter then lowercase letters, digits or `_`; not `admin`, `local`, `config`, `auth`, `jobs` ' +
    'nor the service\'s control database. A name outside this pattern names no database: 404.',
});

const PropertyName = Type.String({ pattern: ANY_PROPERTY_NAME_PATTERN, description: 'The property name.' });

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
        pattern: propertyListPattern(100),
        description: 'Comma-separated property names to return (with _id); _created may be named.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** A malformed `{db}` or `{id}` in a path names nothing: the router answers 404 for it, not 400 (SPEC §2). */
export const DbPath = Type.Object({ db: DatabaseName });
export const DbIdPath = Type.Object({
  db: DatabaseName,
  id: Type.String({ pattern: OBJECT_ID_PATTERN, description: 'Entity or value id: 24 hexadecimal characters; another one names nothing (404).' }),
});

const operatorList = Object.entries(OPERATORS_OF)
  .map(([field, operators]) => `\`${field}\`: ${operators.map((op) => (op === 'eq' ? '(none: equals)' : `\`${op}\``)).join(', ')}`)
  .join('; ');

/** The free-form part of the list query: every other parameter is a filter. */
export const FILTER_DESCRIPTION =
  'Filters, combined with AND: any number of query parameters `<property>.<type>[.<operator>]=<value>` (e.g. `title.string=Dune`, ' +
  '`pages.number.gte=100`, `_type.reference=<id>`, `name.string.regex=/^du/i`). A filter holds when ANY value of the property matches ' +
  '(`ne`: some value differs). `<type>` is the value field: `string` (also for text), `number`, `boolean`, `date`, `datetime`, ' +
  '`reference`, and for files `filename`, `filesize`, `filetype`. Operators by type: ' +
  operatorList +
  `. \`in\`: comma-separated, at most ${MAX_IN} values; \`exists\`: \`true\` or \`false\`; \`regex\`: \`/pattern/flags\`, ` +
  `pattern 1 to ${MAX_REGEX} characters, flags from \`imsu\`, no lookaround or backreferences. Values are literals of the type ` +
  '(`date` as `YYYY-MM-DD`, `datetime` ISO 8601 with an offset, `reference` an entity id). An unknown property, type or operator, a type ' +
  'that is not the property\'s own, a malformed value or a parameter given twice is `400` naming the parameter.';

/**
 * GET /api/{db}/entity. `limit` and `skip` are integers; the other named parameters and every
 * filter are strings whose grammar is the domain parser's, which names the offending parameter.
 */
export const ListQuery = Type.Object(
  {
    sort: Type.Optional(
      Type.String({ description: 'Comma-separated `<property>.<type>` (at most 8), `-` before one for descending, e.g. `-pages.number,title.string`; ties by `_id`.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Page size; `0` returns only `count`.' })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SKIP, default: 0, description: 'Matches to skip before the page.' })),
    q: Type.Optional(Type.String({ maxLength: 1000, description: 'Search terms (at most 16); each must begin a word of a searchable value, case and accents ignored.' })),
    props: Type.Optional(Type.String({ description: 'Comma-separated property names to return (with `_id`); `_created` may be named.' })),
  },
  {
    // Published as the `filters` parameter (openapi.ts), its keys' grammar as `x-key-pattern`.
    additionalProperties: Type.String({ maxLength: 20_000, description: FILTER_DESCRIPTION, 'x-key-pattern': FILTER_KEY_PATTERN }),
  },
);

/**
 * POST /api/{db}/entity/query: the same parameters as the query string of GET /api/{db}/entity,
 * as a JSON object of parameter → string value, for queries a URL cannot carry (an `in` of 1000
 * ids is 25 000 characters; Node refuses request lines and headers over 16 KiB). Values are not
 * limited here beyond the body limit: the parser bounds each one (`in` ≤ 1000 items).
 */
export const QueryBody = Type.Object(
  {
    sort: Type.Optional(Type.String({ description: 'As `sort` of GET /api/{db}/entity.' })),
    limit: Type.Optional(Type.String({ description: 'As `limit` of GET /api/{db}/entity, as a string of digits.' })),
    skip: Type.Optional(Type.String({ description: 'As `skip` of GET /api/{db}/entity, as a string of digits.' })),
    q: Type.Optional(Type.String({ description: 'As `q` of GET /api/{db}/entity.' })),
    props: Type.Optional(Type.String({ description: 'As `props` of GET /api/{db}/entity.' })),
  },
  {
    additionalProperties: Type.String({ description: FILTER_DESCRIPTION }),
    description: 'The parameters of GET /api/{db}/entity, each a string as in its query string.',
    examples: [{ '_type.reference': '65f000000000000000000001', 'title.string.in': 'Dune,Emma', sort: '-title.string', limit: '20' }],
  },
);

export const DownloadQuery = Type.Object(
  { download: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: '`true`: answer 302 to the file.' })) },
  { additionalProperties: false },
);
