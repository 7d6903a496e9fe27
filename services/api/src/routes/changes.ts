import { ChangeEventSchema, FILTER_KEY_PATTERN } from '@entia/domain';
import { feedQueryOf } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import { unauthorized } from '../auth/authenticate';
import { grantOf } from '../http/caller';
import type { ChangeFeed } from '../changes/feed';
import { TICKET_SECONDS, type StreamTickets } from '../changes/tickets';
import type { Deps } from '../deps';
import { problems } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import type { Tenants } from '../tenancy';
import { DbPath, FILTER_DESCRIPTION } from './schemas';

const FeedQuery = Type.Object(
  {
    props: Type.Optional(Type.String({ description: 'Comma-separated property names whose values (as the change left them) each event carries in `values`.' })),
    ticket: Type.Optional(Type.String({ maxLength: 100, description: 'A stream ticket from POST /api/{db}/changes/ticket, for clients that cannot send an Authorization header (EventSource). Used once.' })),
    lastEventId: Type.Optional(Type.String({ maxLength: 100, description: 'As the `Last-Event-ID` header (which wins), for a client opening a new EventSource.' })),
  },
  { additionalProperties: Type.String({ maxLength: 20_000, description: FILTER_DESCRIPTION, 'x-key-pattern': FILTER_KEY_PATTERN }) },
);

const Ticket = Type.Object({
  ticket: Type.String({ description: 'Pass as `?ticket=` to GET /api/{db}/changes, once.' }),
  expiresIn: Type.Integer({ description: 'Seconds it stays valid.' }),
});

const STREAM_DESCRIPTION =
  'Server-Sent Events, one per committed change of an entity the caller may read (anonymous callers: public ones) that matches the filters before or after the change. ' +
  'Event names: `created`, `updated`, `deleted` (data: a ChangeEvent; `inView: false` when the entity left the caller\'s view), ' +
  '`ready` (the stream is live; its id is where it starts), `reset` (events were lost to retention or a Redis restart: reload, then continue), ' +
  '`dropped` (the client did not keep up), `closing` (the server shuts down), `revoked` (the API key was revoked). Comments (`: heartbeat`) keep it open.';

/** The change feed: a stream of Server-Sent Events, and the tickets browsers open it with. */
export function changeRoutes(deps: Deps, tenants: Tenants, feed: ChangeFeed, tickets: StreamTickets): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/{db}/changes',
      operationId: 'streamChanges',
      summary:
        'A live stream of changes (Server-Sent Events). Filters as GET /api/{db}/entity (no sort, limit, skip or q); `Last-Event-ID` resumes after an event with nothing missed, on any API server.',
      tags: ['changes'],
      params: DbPath,
      query: FeedQuery,
      responses: {
        200: { description: STREAM_DESCRIPTION, schema: ChangeEventSchema, contentType: 'text/event-stream' },
        400: { description: 'A malformed filter, or a list-only parameter; both a token and a ticket.' },
        401: { description: 'An expired, forged or revoked token; an unknown, used or expired ticket.' },
        404: { description: 'No such database.' },
        429: { description: 'The caller has CHANGE_STREAMS_PER_PERSON streams open already.' },
        503: { description: 'This server has CHANGE_STREAMS_MAX streams open, or Redis is unavailable.' },
      },
      // Its caller may be a ticket's rather than the token's, and a token beside a ticket is refused first.
      tenant: false,
      handler: async ({ params, query, req, res }) => {
        const { ticket, lastEventId, ...raw } = query;
        let grant = grantOf(res);
        if (ticket !== undefined) {
          if (grant) throw problems.invalidRequest('Send a token or a ticket, not both.', [{ parameter: 'ticket', message: 'not with an Authorization header' }]);
          grant = await tickets.redeem(ticket, params.db);
          if (!grant) throw unauthorized('The ticket is unknown, used or expired: ask POST /api/{db}/changes/ticket for another.');
        }
        const tenant = await tenants.resolve(params.db, grant);
        const feedQuery = await feedQueryOf(deps, tenant, raw);
        const holder = tenant.caller.personId ?? `ip:${req.ip ?? 'unknown'}`;
        await feed.serve({ tenant, query: feedQuery, holder, lastEventId: req.get('last-event-id') ?? lastEventId }, res);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/{db}/changes/ticket',
      operationId: 'changeStreamTicket',
      summary: `A single-use ticket that opens one change stream of this database as the caller within ${TICKET_SECONDS} s: for browsers' EventSource, which cannot send the token. Never put the token itself in a URL.`,
      tags: ['changes'],
      params: DbPath,
      security: 'required',
      responses: {
        201: { description: 'The ticket.', schema: Ticket },
        401: { description: 'Not signed in (or an expired, forged or revoked token).' },
        403: { description: 'The token does not grant this database.' },
        404: { description: 'No such database.' },
      },
      // Without a token the answer is 401, whatever the database.
      tenant: false,
      handler: async ({ params, res }) => {
        const grant = grantOf(res);
        if (!grant) throw unauthorized('Sign in: a ticket is issued to a token holder.');
        const tenant = await tenants.resolve(params.db, grant);
        const ticket = await tickets.issue(tenant.name, tenant.caller.personId!, grant.kid);
        res.status(201).set('Cache-Control', 'no-store').json({ ticket, expiresIn: TICKET_SECONDS });
      },
    }),
  ];
}
