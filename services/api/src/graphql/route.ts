import type { Schema, Tenant } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { createHandler, type OperationContext } from 'graphql-http';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { DbPath } from '../routes/schemas';
import type { GraphqlContext } from './context';
import { GRAPHQL_LIMITS, boundedParse, limitRules } from './limits';
import { Loaders } from './loaders';
import { buildGraphqlSchema, type BuiltSchema } from './schema';

interface Prepared {
  schema: GraphQLSchema;
  context: GraphqlContext;
}

const QueryText = Type.String({ minLength: 1, maxLength: GRAPHQL_LIMITS.maxQueryLength, description: `The GraphQL document (at most ${GRAPHQL_LIMITS.maxQueryLength} characters).` });
const OperationName = Type.String({ maxLength: 200, description: 'Which operation of the document to run.' });

const GraphqlBody = Type.Object(
  {
    query: QueryText,
    variables: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    operationName: Type.Optional(Type.Union([OperationName, Type.Null()])),
    extensions: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  },
  { description: 'GraphQL over HTTP: a document, its variables and which operation to run.' },
);

const GraphqlQuery = Type.Object({
  query: QueryText,
  variables: Type.Optional(Type.String({ maxLength: 100_000, description: 'The variables as JSON.' })),
  operationName: Type.Optional(OperationName),
});

const GraphqlAnswer = Type.Object(
  { data: Type.Optional(Type.Unknown()), errors: Type.Optional(Type.Array(Type.Unknown())) },
  { description: 'A GraphQL response; each error names its kind in `extensions.code`.' },
);

const responses = {
  200: { description: 'The result; refusals (rights, validation, limits) are GraphQL errors with `extensions.code`.', schema: GraphqlAnswer, contentType: 'application/graphql-response+json' },
  400: { description: 'Not a GraphQL request: bad JSON, no or too long `query`, a document that does not parse or validate, or a limit exceeded.' },
  401: { description: 'Expired, forged or revoked token.' },
  404: { description: 'No such database.' },
  405: { description: 'A mutation over GET.' },
};

/**
 * POST and GET /api/{db}/graphql: GraphQL over HTTP by graphql-http, behind the same
 * guards as every route (authentication, rate limit, body limit, problem+json for what is not a
 * GraphQL request). The schema is generated per database and kept per compiled schema of the
 * schema cache, which is replaced when a type or definition changes: never stale.
 */
export function graphqlRoutes(deps: Deps): Route[] {
  const built = new WeakMap<Schema, BuiltSchema>();
  const handler = createHandler<Request, Prepared, OperationContext>({
    schema: (req) => req.context.schema,
    context: (req) => req.context.context as unknown as OperationContext,
    parse: boundedParse as never,
    validationRules: (_req, args, specified) => [...specified, ...limitRules(args.variableValues ?? undefined)],
  });

  async function answer(tenant: Tenant, req: Request, res: Parameters<Route['handler']>[0]['res'], body: Record<string, unknown> | null): Promise<void> {
    const schema = await deps.schemas.of(tenant.name, tenant.record);
    let generated = built.get(schema);
    if (!generated) {
      generated = buildGraphqlSchema(schema);
      built.set(schema, generated);
    }
    const context: GraphqlContext = { deps, tenant, schema, naming: generated.naming, loaders: new Loaders(tenant), logger: req.log ?? deps.logger };
    const [text, init] = await handler({
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      body,
      raw: req,
      context: { schema: generated.schema, context },
    });
    res.status(init.status).set({ ...init.headers, 'Cache-Control': 'no-store' }).send(text ?? '');
  }

  return [
    defineRoute({
      method: 'post',
      path: '/api/{db}/graphql',
      operationId: 'graphql',
      summary: 'GraphQL over HTTP on the database: its types as object types, lists with the REST list semantics, the writes as mutations; same rights as REST.',
      tags: ['graphql'],
      params: DbPath,
      body: GraphqlBody,
      security: 'optional',
      responses,
      handler: ({ tenant, body, req, res }) => answer(tenant, req, res, body as Record<string, unknown>),
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/graphql',
      operationId: 'graphqlGet',
      summary: 'GraphQL over HTTP by GET: queries only (a mutation is 405).',
      tags: ['graphql'],
      params: DbPath,
      query: GraphqlQuery,
      responses,
      handler: ({ tenant, req, res }) => answer(tenant, req, res, null),
    }),
  ];
}
