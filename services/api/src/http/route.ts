import type { Static, TSchema } from '@sinclair/typebox';
import type { Tenant } from '@entia/entities';
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

/** Whether the route is given its `{db}` resolved: `false` for a route that resolves it itself (see `Route.tenant`). */
type TenantOf<P, T> = T extends false ? undefined : Input<P> extends { db: string } ? Tenant : undefined;

export interface RouteContext<P, Q, B, T = undefined> {
  params: Input<P>;
  query: Input<Q>;
  body: Input<B>;
  /** The path's `{db}` resolved for the request's caller (`Tenants.resolve`), before the handler runs. */
  tenant: TenantOf<P, T>;
  req: Request;
  res: Response;
}

/**
 * One endpoint: its OpenAPI description and its request schemas, which are both what the router
 * validates with and what /api/openapi.json publishes. A route that is not declared here does not
 * exist, in the router or in the document.
 */
export interface Route<
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  T extends false | undefined = false | undefined,
> {
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
  /**
   * A route under `/api/{db}` is given `tenant`: its database resolved for the verified caller (404
   * for no such database, 403 for a token that does not grant it) after validation and before the
   * handler. `false`: the handler resolves it itself, for a caller it learns otherwise (a change
   * stream's ticket) or after checks of its own that answer first.
   */
  tenant?: T;
  handler(context: RouteContext<P, Q, B, T>): Promise<void> | void;
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
export function defineRoute<P extends TSchema | undefined = undefined, Q extends TSchema | undefined = undefined, B extends TSchema | undefined = undefined, T extends false | undefined = undefined>(
  route: Route<P, Q, B, T>,
): Route {
  return route as unknown as Route;
}
