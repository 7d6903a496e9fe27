import type { TSchema } from '@sinclair/typebox';
import type { Route } from './http/route';

type Json = Record<string, unknown>;

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { parameter: { type: 'string' }, pointer: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

/** Path/query parameters are listed one by one, each with the schema the router validates it with. */
function parameters(schema: TSchema | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(property.description ? { description: property.description } : {}),
    schema: property,
  }));
}

function operation(route: Route): Json {
  const responses: Json = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = spec.schema
      ? { description: spec.description, content: { [spec.contentType ?? 'application/json']: { schema: spec.schema } } }
      : { description: spec.description };
  }
  responses.default = {
    description: 'An error (RFC 9457 problem details).',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, built from the same route list (and schemas) the router mounts. */
export function openApiDocument(routes: Route[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  return {
    openapi: '3.1.0',
    info: { title: 'Entia API', version, description: 'Entity/property data service.' },
    paths,
    components: { schemas: { Problem: problemSchema } },
  };
}
