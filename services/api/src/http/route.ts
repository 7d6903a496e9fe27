import type { Static, TSchema } from '@sinclair/typebox';
import type { Request, Response } from 'express';
import type { Prefetch } from './rate-limit';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * `none`: no credential (probes, the document). `apiKey`: an API key as the Bearer (only the key
 * exchange). `optional`: a token when the caller has one; anonymous callers see public data.
 * `required`: a token; without one the answer is 401.
 */
export type Security = 'none' | 'apiKey' | 'optional' | 'required';

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
}

type Input<S> = S extends TSchema ? Static<S> : undefined;

export interface RouteContext<P, Q, B> {
  params: Input<P>;
  query: Input<Q>;
  body: Input<B>;
  req: Request;
  res: Response;
}

/**
 * One endpoint: its OpenAPI description and its request schemas, which are both what the router
 * validates with and what /api/openapi.json publishes. A route that is not declared here does not
 * exist, in the router or in the document.
 */
export interface Route<P extends TSchema | undefined = TSchema | undefined, Q extends TSchema | undefined = TSchema | undefined, B extends TSchema | undefined = TSchema | undefined> {
  method: Method;
  /** OpenAPI style, e.g. `/api/jobs/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** The body may be left out (no bytes at all): it is then validated, and handled, as `{}`. */
  optionalBody?: boolean;
  responses: Record<number, ResponseSpec>;
  /** Probes and metrics are exempt so that a busy client cannot make a pod look dead. */
  rateLimited?: boolean;
  /** Redis keys read with the rate-limit count, in the same round trip (a cached GET's entry). */
  prefetch?: Prefetch;
  /**
   * A POST that only reads (a query too long for a URL): `Idempotency-Key` does not apply, since
   * repeating it changes nothing, and keeping its answers for 24 h would only fill Redis.
   */
  readOnly?: boolean;
  /**
   * `token` (default): a Bearer JWT is verified when present (the request is anonymous without
   * one). `none`: the Authorization header is not this layer's business (probes, the key exchange).
   */
  auth?: 'token' | 'none';
  /**
   * What the OpenAPI document tells clients to send (`securityOf` gives the default). The handler
   * is what enforces it: services/api/test/openapi.test.ts sends every operation without a token
   * and checks each answer against this.
   */
  security?: Security;
  handler(context: RouteContext<P, Q, B>): Promise<void> | void;
}

/**
 * Declared, or: nothing for routes outside the token layer, optional for reads (a read-only POST
 * such as the long-query route included: anonymous callers see public entities), required for writes.
 */
export function securityOf(route: Route): Security {
  if (route.security) return route.security;
  if (route.auth === 'none') return 'none';
  return route.method === 'get' || route.readOnly ? 'optional' : 'required';
}

/** Keeps each route's handler typed by its own schemas while routes are collected in one list. */
export function defineRoute<P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined>(
  route: Route<P, Q, B>,
): Route {
  return route as unknown as Route;
}
