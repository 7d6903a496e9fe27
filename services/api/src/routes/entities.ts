import { callerTags, fromEntuSpelling, inEntuSpelling, isEntuInvitation, parseListQuery, parseProps, type ListQuery as ParsedListQuery, type RawQuery } from '@entia/domain';
import type { Request, Response } from 'express';
import { addValues, createEntity, deleteEntity, deleteValue, downloadUrlOf, entityAt, existingId, getEntity, getValue, listEntities } from '@entia/entities';
import { grantOf } from '../http/caller';
import { personIn } from '../auth/tokens';
import type { Deps } from '../deps';
import { InvitationSender } from '../invitations';
import { smtpMailer } from '../mail/mailer';
import { ResponseCache, sendRendered } from '../http/response-cache';
import { sendUncached } from '../http/uncached';
import { defineRoute, type Route } from '../http/route';
import { AddedValues, DbIdPath, DbPath, Deleted, DownloadQuery, EntityAnswer, EntityQuery, ListAnswer, ListQuery, QueryBody, Value, ValuesBody, WriteResponse } from './schemas';

const errors = {
  400: { description: 'Invalid input; `errors` points at each offending value.' },
  401: { description: 'Missing (on a write), expired, forged or revoked token.' },
  403: { description: 'Readable, but the caller lacks the right for this write (or the token is for another database).' },
  404: { description: 'No such database or entity, or the caller may not read it.' },
};


/**
 * Whose view a cached page of `db` is: the person the token grants there, or anybody (anonymous).
 * As `Tenants.resolve` finds the caller, which refuses a token for another database before any
 * cached page is used.
 */
function viewOf(req: Request, res: Response): string {
  const grant = grantOf(res);
  const personId = grant && personIn(grant, req.params.db as string);
  return callerTags(personId === undefined ? {} : { personId })[0]!;
}

/**
 * A GET's list query, parsed once per request: by the cache's prefetch (in the rate limiter's
 * guard, from the raw query) when it runs, else by the handler. Validation, which runs between the
 * two, only fills in defaults and reads decimal integers, which parse alike; a query the prefetch
 * could not parse is parsed again by the handler, which answers its 400.
 */
function parsedListQuery(res: Response, raw: RawQuery): ParsedListQuery {
  return ((res.locals as { listQuery?: ParsedListQuery }).listQuery ??= parseListQuery(raw));
}

/** A page of a list query, whether its parameters came in the URL or in the body. */
const listResponses = {
  200: {
    description:
      'One page of matches; `count` counts all of them (left out with `count=none`); `next`, when more matches follow, is the `after` of the next page. With `group`: one page of rows, `count` counting the rows.',
    schema: ListAnswer,
  },
  400: errors[400],
  401: errors[401],
  403: errors[403],
  404: errors[404],
  503: { description: 'The query ran out of time.' },
};

export function entityRoutes(deps: Deps): Route[] {
  const cache = new ResponseCache(deps.cacheBreaker, deps.generations, deps.config.REDIS_PREFIX, deps.config.CACHE_TTL_SECONDS, deps.logger);
  const invitations = new InvitationSender(deps, smtpMailer(deps.config));
  return [
    defineRoute({
      method: 'post',
      path: '/api/{db}/entity',
      operationId: 'createEntity',
      summary: 'Create an entity from its values; `_type` is required. The creator becomes its owner.',
      tags: ['entities'],
      params: DbPath,
      body: ValuesBody,
      responses: { 201: { description: 'Created; `Location` names the entity.', schema: WriteResponse }, ...errors },
      handler: async ({ params, body, tenant, req, res }) => {
        const created = await createEntity(deps, tenant, fromEntuSpelling(body).items);
        res.status(201).location(`${req.baseUrl}/api/${params.db}/entity/${created._id}`).json(created);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/entity',
      operationId: 'listEntities',
      summary:
        'Entities the caller may read that match every filter `<property>.<type>[.<operator>]=<value>` (SPEC §7), sorted and paged (by `skip`, or by cursor: `after` = a page\'s `next`); `q` searches searchable properties.',
      tags: ['entities'],
      params: DbPath,
      query: ListQuery,
      responses: listResponses,
      prefetch: cache.prefetch((req, res) => ({ db: req.params.db as string, variant: JSON.stringify([viewOf(req, res), parsedListQuery(res, req.query as RawQuery)]) })),
      handler: async ({ params, query, tenant, req, res }) => {
        const parsed = parsedListQuery(res, query);
        sendRendered(req, res, await cache.render(res, () => listEntities(deps, tenant, parsed)));
      },
    }),
    // Before POST /api/{db}/entity/{id}, which would otherwise take "query" for an id.
    defineRoute({
      method: 'post',
      path: '/api/{db}/entity/query',
      operationId: 'queryEntities',
      summary:
        'GET /api/{db}/entity with its parameters in the body (a JSON object of parameter → string value): for queries too long for a URL, such as an `in` of 1000 ids. Same rules, same rights; not cached.',
      tags: ['entities'],
      params: DbPath,
      body: QueryBody,
      readOnly: true,
      responses: listResponses,
      handler: async ({ params, body, tenant, res }) => {
        // The response cache is keyed for GETs (ETag, If-None-Match); a POST is answered afresh.
        res.set('Cache-Control', 'no-store').json(await listEntities(deps, tenant, parseListQuery(body)));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/entity/{id}',
      operationId: 'getEntity',
      summary: 'An entity with its values (only `props` when given); with `at`, as it was then.',
      tags: ['entities'],
      params: DbIdPath,
      query: EntityQuery,
      responses: { 200: { description: 'The entity.', schema: EntityAnswer }, ...errors },
      // `at` (the entity as it was) is never cached.
      prefetch: cache.prefetch((req, res) =>
        req.query.at === undefined ? { db: req.params.db as string, entity: req.params.id as string, variant: JSON.stringify([viewOf(req, res), (req.query.props as string | undefined)?.split(',') ?? null]) } : undefined,
      ),
      handler: async ({ params, query, tenant, req, res }) => {
        const id = existingId(params.id, 'entity');
        const props = query.props === undefined ? undefined : parseProps(query.props);
        if (query.at !== undefined) return sendUncached(req, res, await entityAt(deps, tenant, id, query.at, props));
        sendRendered(req, res, await cache.render(res, () => getEntity(tenant, id, props)));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/{db}/entity/{id}',
      operationId: 'addValues',
      summary:
        'Add values, or overwrite values named by `_id`; all or nothing. `[{"type": "entu_user", "string": "send-invite"}]` alone invites the person instead: e-mailed through SMTP_URL, else its token answered once in `invite`.',
      tags: ['entities'],
      params: DbIdPath,
      body: ValuesBody,
      responses: {
        200: { description: 'The values created or overwritten, as one array in the order sent, each naming its property in `type` (Entu\'s shape).', schema: AddedValues },
        ...errors,
        503: { description: 'An invitation whose e-mail the SMTP server did not take: withdrawn, nothing written.' },
      },
      handler: async ({ params, body, tenant, res }) => {
        // Entu's "send invite": an invitation, not a value (see ../invitations.ts).
        if (isEntuInvitation(body)) return void res.json(await invitations.send(tenant, existingId(params.id, 'entity')));
        const { items, sentAs } = fromEntuSpelling(body);
        const added = await addValues(deps, tenant, existingId(params.id, 'entity'), items);
        res.json({ ...added, properties: inEntuSpelling(added.properties, sentAs) });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/{db}/entity/{id}',
      operationId: 'deleteEntity',
      summary: 'Delete an entity (owner only).',
      tags: ['entities'],
      params: DbIdPath,
      responses: { 200: { description: 'Deleted.', schema: Deleted }, ...errors },
      handler: async ({ params, tenant, res }) => {
        res.json(await deleteEntity(deps, tenant, existingId(params.id, 'entity')));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/property/{id}',
      operationId: 'getProperty',
      summary: 'One value, by its `_id`; a file value adds a signed `url` valid 60 s (`download=true`: 302 to it).',
      tags: ['entities'],
      params: DbIdPath,
      query: DownloadQuery,
      responses: {
        200: { description: 'The value; file values with `url`.', schema: Value },
        302: { description: '`download=true`: redirect to the signed URL of the file.' },
        ...errors,
      },
      handler: async ({ params, query, tenant, req, res }) => {
        const id = existingId(params.id, 'property');
        if (query.download !== 'true') return sendUncached(req, res, await getValue(deps, tenant, id));
        res.set('Cache-Control', 'no-store').redirect(302, await downloadUrlOf(deps, tenant, id));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/{db}/property/{id}',
      operationId: 'deleteProperty',
      summary: 'Delete one value, by its `_id`.',
      tags: ['entities'],
      params: DbIdPath,
      responses: { 200: { description: 'Deleted.', schema: Deleted }, ...errors },
      handler: async ({ params, tenant, res }) => {
        res.json(await deleteValue(deps, tenant, existingId(params.id, 'property')));
      },
    }),
  ];
}
