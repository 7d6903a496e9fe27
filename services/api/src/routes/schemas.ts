import {
  AddedValuesSchema,
  DEFAULT_LIMIT,
  DatabaseNameSchema,
  DeletedSchema,
  EntityListSchema,
  EntitySchema,
  GroupedListSchema,
  HistorySchema,
  FILTER_KEY_PATTERN,
  MAX_CURSOR_LENGTH,
  MAX_GROUPS,
  MAX_GROUP_KEYS,
  MAX_IN,
  MAX_LIMIT,
  MAX_REGEX,
  MAX_SKIP,
  OBJECT_ID_PATTERN,
  FILTER_FIELDS,
  OPERATORS,
  OPERATORS_OF,
  OPERATOR_TABLE,
  ValueInputSchema,
  ValueSchema,
  WriteResultSchema,
  propertyListPattern,
} from '@entia/domain';
import { Type } from '@sinclair/typebox';

/**
 * Request and response shapes of the entity endpoints: what the router validates and OpenAPI shows.
 * The wire shapes themselves (values, entities, lists) are the domain's, which the client's types
 * are derived from too; what is here is how the routes take them.
 */

export const DatabaseName = DatabaseNameSchema;
export const ValueInput = ValueInputSchema;
export const Value = ValueSchema;
export const EntityBody = EntitySchema;
export const EntityList = EntityListSchema;
/** A page of a list: entities, or with `group`, rows of counts. */
export const ListAnswer = Type.Union([EntityListSchema, GroupedListSchema]);
export const WriteResponse = WriteResultSchema;
export const AddedValues = AddedValuesSchema;
export const Deleted = DeletedSchema;
export const History = HistorySchema;
/** One entity, wrapped: the answer of reading or recomputing one. */
export const EntityAnswer = Type.Object({ entity: EntityBody });

export const ValuesBody = Type.Array(ValueInput, { minItems: 1, maxItems: 1000, description: 'Values to write, all or nothing.' });

const Props = Type.Optional(
  Type.String({
    pattern: propertyListPattern(100),
    description: 'Comma-separated property names to return (with _id); _created may be named. A path `<property>.<field>` (`ordinal.number`) returns only that field of each value, with its _id.',
  }),
);

/** Reading one entity: `props`, and `at` for the entity as it was then (from its history). */
export const EntityQuery = Type.Object(
  {
    props: Props,
    at: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'ISO 8601 date and time with an offset: the entity as it was then, with the rights it has now (404 before its creation).',
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

/**
 * The operator table as the document publishes it (`x-operators` on the list's `filters`): per
 * operator, its operand (`scalar`, `list`, `boolean` or `pattern`), what it asks, and the value
 * fields that take it — generated from the domain's table, so the document names every operator
 * the parser reads.
 */
export const PUBLISHED_OPERATORS = Object.fromEntries(
  OPERATORS.map((op) => [op, { operand: OPERATOR_TABLE[op].operand, description: OPERATOR_TABLE[op].description, fields: FILTER_FIELDS.filter((field) => OPERATORS_OF[field].includes(op)) }]),
);

/** The free-form part of the list query: every other parameter is a filter. */
export const FILTER_DESCRIPTION =
  'Filters, combined with AND: any number of query parameters `<property>.<type>[.<operator>]=<value>` (e.g. `title.string=Dune`, ' +
  '`pages.number.gte=100`, `_type.reference=<id>`, `name.string.regex=/^du/i`). A filter holds when ANY value of the property matches ' +
  '(`ne`: some value differs). `<type>` is the value field: `string` (also for text), `number`, `boolean`, `date`, `datetime`, ' +
  '`reference` (a reference also filters and sorts by its label, `author.string=Jane Austen`, `_type.string=book`), and for files `filename`, `filesize`, `filetype`; ' +
  '`<property>._id.exists=true|false`: whether the entity has any value of the property (any property name; one no type defines has none). ' +
  'A right list (`_owner`, `_editor`, `_expander`, `_viewer`) filters as it is shown, cumulative: `_expander.reference=<id>` also finds owners and editors. Operators by type: ' +
  operatorList +
  `. \`in\`: comma-separated, at most ${MAX_IN} values; \`exists\`: \`true\` or \`false\`; \`regex\`: \`/pattern/flags\`, ` +
  `pattern 1 to ${MAX_REGEX} characters, flags from \`imsu\`, no lookaround or backreferences. Values are literals of the type ` +
  '(`date` as `YYYY-MM-DD`, `datetime` ISO 8601 with an offset, both also as epoch-millisecond digits, a date\'s being its local midnight; ' +
  '`reference` an entity id). An unknown property, type or operator, a type ' +
  'that is not the property\'s own, a malformed value or a parameter given twice is `400` naming the parameter.';

const COUNT_DESCRIPTION = '`exact` (the default): `count` is every match; `none`: no `count` in the answer, and no second pass over the matches to count them.';
const GROUP_DESCRIPTION =
  `Comma-separated \`<property>.<field>\` (at most ${MAX_GROUP_KEYS}, e.g. \`_type.reference\`): instead of entities, one row per distinct combination of these ` +
  'values among the matches the caller may read, `{<property>: [{type, <field>, string?}…], _count}` (a reference with its label), `count` the number of rows. ' +
  '`sort` names grouped keys only (or a grouped reference\'s label, `_type.string`); default: the keys ascending. `limit`/`skip` page the rows; `after` is refused; ' +
  `\`props\` may name grouped properties only. At most ${MAX_GROUPS} groups, else 400.`;
const AFTER_DESCRIPTION =
  'A previous page\'s `next`: this page starts right after that page, by its position in the sort order rather than by a number of matches skipped, ' +
  'so entities created or deleted meanwhile shift nothing. Give the same filters, `sort` and `q`; a cursor made for another sort, or with `skip`, is `400`.';

/**
 * GET /api/{db}/entity. `limit` and `skip` are integers; the other named parameters and every
 * filter are strings whose grammar is the domain parser's, which names the offending parameter.
 */
export const ListQuery = Type.Object(
  {
    sort: Type.Optional(
      Type.String({ description: 'Comma-separated `<property>.<type>` (at most 8), `-` before one for descending, e.g. `-pages.number,title.string`; a reference by its label (`author.string`) or id (`author.reference`), a boolean false first; ties by `_id`.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Page size; `0` returns only `count`.' })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SKIP, default: 0, description: 'Matches to skip before the page.' })),
    q: Type.Optional(Type.String({ maxLength: 1000, description: 'Search terms (at most 16); each must begin a word of a searchable value, case and accents ignored.' })),
    props: Type.Optional(
      Type.String({ description: 'Comma-separated property names to return (with `_id`); `_created` may be named. A path `<property>.<field>` (`ordinal.number`) returns only that field of each value, with its `_id`.' }),
    ),
    count: Type.Optional(Type.Union([Type.Literal('exact'), Type.Literal('none')], { description: COUNT_DESCRIPTION })),
    after: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: AFTER_DESCRIPTION })),
    group: Type.Optional(Type.String({ maxLength: 1000, description: GROUP_DESCRIPTION })),
  },
  {
    // Published as the `filters` parameter (openapi.ts), its keys' grammar as `x-key-pattern`, the operators as `x-operators`.
    additionalProperties: Type.String({ maxLength: 20_000, description: FILTER_DESCRIPTION, 'x-key-pattern': FILTER_KEY_PATTERN, 'x-operators': PUBLISHED_OPERATORS }),
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
    count: Type.Optional(Type.String({ description: 'As `count` of GET /api/{db}/entity: `exact` or `none`.' })),
    after: Type.Optional(Type.String({ description: 'As `after` of GET /api/{db}/entity.' })),
    group: Type.Optional(Type.String({ description: 'As `group` of GET /api/{db}/entity.' })),
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
