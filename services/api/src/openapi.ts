import { ProblemSchema } from '@entia/domain';
import type { TSchema } from '@sinclair/typebox';
import { IDEMPOTENCY_HEADER, IdempotencyKeySchema } from './http/idempotency';
import { securityOf, type ResponseSpec, type Route, type Security } from './http/route';

type Json = Record<string, unknown>;

/** The two credentials (SPEC §6). Both travel as `Authorization: Bearer …`, to different routes. */
const securitySchemes = {
  token: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A token from `GET /api/auth`, valid 48 h, naming the databases and people it signs in as. Without one a request is anonymous ' +
      '(reads see `public` entities only; writes are 401). An expired, malformed, forged or revoked token is 401 on every route, never ' +
      'anonymous; a token stops working within `KEY_RECHECK_MS` (≤ 60 s) of its API key being revoked.',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key, sent only to `GET /api/auth` to get a token. A person gets one by POSTing `{"type": "_api_key"}` to their person ' +
      'entity (the plaintext is in that response only; the service keeps its SHA-256), and revokes it by deleting that value.',
  },
};

/** What each kind of route asks for. An empty requirement `{}` among the alternatives makes the credential optional. */
const requirements: Record<Security, Json[]> = {
  none: [],
  apiKey: [{ apiKey: [] }],
  optional: [{}, { token: [] }],
  required: [{ token: [] }],
};

const tags = [
  { name: 'auth', description: 'Exchanging an API key for a token.' },
  { name: 'changes', description: 'A live feed of committed changes in one database `{db}` (Server-Sent Events), resumable with `Last-Event-ID`.' },
  { name: 'entities', description: 'Entities and their values in one database `{db}`, and their derived data.' },
  { name: 'graphql', description: 'GraphQL over HTTP on one database `{db}`: a schema generated from its types, the same use cases and rights as the REST routes.' },
  { name: 'jobs', description: 'Background jobs.' },
  { name: 'operations', description: 'Probes and this document. Prometheus metrics are on a separate port (`METRICS_PORT`), not here.' },
];

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } } };

/** Path/query parameters are listed one by one, each with the schema the router validates it with. */
function parameters(schema: TSchema | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  const listed = Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(property.description ? { description: property.description } : {}),
    schema: property,
  }));
  return [...listed, ...freeForm(schema)];
}

/**
 * A query schema that takes other keys (the list's filters) is published as one exploded object
 * parameter, the OpenAPI way of saying "any further `key=value` pairs", with their key grammar and
 * (`x-operators`) the filter operators: each one's operand, meaning and the value fields that take it.
 */
function freeForm(schema: TSchema): Json[] {
  const extra = schema.additionalProperties as TSchema | boolean | undefined;
  if (typeof extra !== 'object') return [];
  const { description, 'x-key-pattern': keyPattern, 'x-operators': operators, ...value } = extra;
  return [
    {
      name: 'filters',
      in: 'query',
      required: false,
      style: 'form',
      explode: true,
      description,
      ...(operators ? { 'x-operators': operators } : {}),
      schema: { type: 'object', ...(keyPattern ? { propertyNames: { pattern: keyPattern } } : {}), additionalProperties: value },
    },
  ];
}

/** Every POST takes an `Idempotency-Key` (SPEC §11); the router checks it against the same schema. */
const idempotencyKey = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a repeat by the same caller with the same key, method, path and JSON-equal body within 24 h ' +
    'returns the first answer (status, body, `Location`) with `Idempotent-Replayed: true` and writes nothing. ' +
    'Answers 5xx, 401, 408, 409, 423, 425 and 429 are not kept: a retry executes again. Ignored on anonymous requests.',
  schema: IdempotencyKeySchema,
};

/** Errors the router itself answers, by what the route takes; a route's own description wins. */
function commonErrors(route: Route): Record<number, ResponseSpec> {
  const security = securityOf(route);
  const errors: Record<number, ResponseSpec> = {};
  if (route.query || route.body) errors[400] = { description: 'Invalid input: `errors` names each offending parameter, or points into the body.' };
  if (security === 'optional') errors[401] = { description: 'An expired, malformed, forged or revoked token (without one the request is anonymous).' };
  if (security === 'required') errors[401] = { description: 'No token, or an expired, malformed, forged or revoked one.' };
  if (route.params) errors[404] = { description: 'Nothing there: a path parameter outside its pattern, or nothing the caller may read.' };
  if (route.method === 'post' && !route.readOnly) {
    errors[409] = { description: 'The first request with this `Idempotency-Key` is still running; retry after `Retry-After` seconds.' };
    errors[422] = { description: 'This `Idempotency-Key` was used for another request (method, path or body).' };
  }
  if (route.body) {
    errors[413] = { description: 'The body is larger than `BODY_LIMIT_BYTES`.' };
    errors[415] = { description: 'The body is not `application/json`.' };
  }
  if (route.rateLimited !== false) errors[429] = { description: 'Too many requests from this caller; retry after `Retry-After` seconds.' };
  errors[503] = { description: 'Shutting down, or a dependency this operation needs is unavailable; retry after `Retry-After` seconds.' };
  return errors;
}

function response(status: number, spec: ResponseSpec): Json {
  if (status >= 400) {
    return {
      description: spec.description,
      ...([409, 429, 503].includes(status) ? { headers: retryAfter } : {}),
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return spec.schema ? { description: spec.description, content: { [spec.contentType ?? 'application/json']: { schema: spec.schema } } } : { description: spec.description };
}

function operation(route: Route): Json {
  // Read-only POSTs (the long-query route) take no Idempotency-Key.
  const post = route.method === 'post' && !route.readOnly;
  const responses: Json = {};
  const all = { ...commonErrors(route), ...route.responses };
  for (const status of Object.keys(all).map(Number).sort((a, b) => a - b)) responses[status] = response(status, all[status]!);
  responses.default = {
    description: 'Any other error (RFC 9457 problem details).',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    security: requirements[securityOf(route)],
    parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query'), ...(post ? [idempotencyKey] : [])],
    ...(route.body ? { requestBody: { required: !route.optionalBody, content: { 'application/json': { schema: route.body } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, built from the same route list (and schemas) the router mounts. */
export function openApiDocument(routes: Route[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Entia API',
      version,
      description:
        'Entity/property data service. Sign in by exchanging an API key for a token at `GET /api/auth` ' +
        '(`Authorization: Bearer <API key>`), then send `Authorization: Bearer <token>`. Reads without a token see public entities; ' +
        'writes need one. Errors are RFC 9457 problem details.',
    },
    servers: [{ url: '/', description: 'The address this document was fetched from.' }],
    tags,
    security: requirements.required,
    paths,
    components: { schemas: { Problem: ProblemSchema }, securitySchemes },
  };
}
