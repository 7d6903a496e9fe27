import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '../http/route';
import { openApiDocument } from '../openapi';

/** Serves the document describing `routes` plus itself. */
export function openApiRoute(routes: Route[], version: string): Route {
  const self = defineRoute({
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'openapi',
    summary: 'This API, described as OpenAPI 3.1.',
    tags: ['operations'],
    auth: 'none',
    responses: { 200: { description: 'The OpenAPI document.', schema: Type.Object({}, { additionalProperties: true }) } },
    handler: ({ res }) => {
      res.json(document);
    },
  });
  const document = openApiDocument([...routes, self], version);
  return self;
}
