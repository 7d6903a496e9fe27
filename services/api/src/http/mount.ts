import type { Tenant } from '@entia/entities';
import express, { type Express, type RequestHandler, type Response } from 'express';
import { refuseFailedAuthentication } from './caller';
import type { Lifecycle } from './lifecycle';
import type { Prefetch } from './rate-limit';
import { problems, sendProblem } from './problem';
import type { Route } from './route';
import { compileValidator, type Location } from './validate';

export interface MountOptions {
  /** Counts running handlers, so shutdown waits for one whose client has gone. */
  lifecycle: Lifecycle;
  bodyLimit: number;
  authenticate: RequestHandler;
  /** The rate limit's guard of a route, which also reads what the route prefetches. */
  rateLimit: (prefetch?: Prefetch) => RequestHandler;
  /** `Idempotency-Key` handling, on every POST route. */
  idempotency: RequestHandler;
  /** The path's `{db}` for the request's verified caller (`Tenants.resolve`): each route's `tenant`. */
  tenantOf: (db: string, res: Response) => Promise<Tenant>;
}

/** `/api/jobs/{id}` → `/api/jobs/:id` */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/**
 * Registers every route with its guards in a fixed order: authentication (so limits can count per
 * API key, and idempotency keys belong to a caller), rate limit, the 401 of a failed authentication
 * (after the limit, which counts it per IP), media type, body parsing (bounded), on POST the
 * idempotency key unless the route only reads (it fingerprints the body as sent, before validation
 * applies defaults; a replay skips everything after it), validation of params (404) and query/body
 * (400), the path's `{db}` resolved to the route's `tenant`, handler. Then answers `OPTIONS` (CORS preflights) with 204 and `Allow`, and 405 with
 * `Allow` for any other method on a known path.
 */
export function mountRoutes(app: Express, routes: Route[], options: MountOptions): void {
  const json = express.json({ limit: options.bodyLimit, type: ['application/json', 'application/*+json'] });
  const allowed = new Map<string, string[]>();

  for (const route of routes) {
    const path = expressPath(route.path);
    allowed.set(path, [...(allowed.get(path) ?? []), route.method.toUpperCase()]);
    const guards: RequestHandler[] = [];
    if (route.auth !== 'none') guards.push(options.authenticate);
    if (route.rateLimited !== false) guards.push(options.rateLimit(route.prefetch));
    if (route.auth !== 'none') guards.push(refuseFailedAuthentication);
    if (route.body) guards.push(requireJson, json);
    if (route.method === 'post' && !route.readOnly) guards.push(options.idempotency);
    guards.push(validation(route));
    const givenTenant = route.tenant !== false && route.path.includes('{db}');
    app[route.method](path, ...guards, async (req, res) => {
      const input = res.locals.input as { params: never; query: never; body: never };
      const end = options.lifecycle.begin();
      try {
        const tenant = givenTenant ? await options.tenantOf((input.params as { db: string }).db, res) : undefined;
        await route.handler({ ...input, tenant: tenant as never, req, res });
      } finally {
        end();
      }
    });
  }

  for (const [path, methods] of allowed) {
    if (methods.includes('GET')) methods.push('HEAD');
    // OPTIONS on any known path (a CORS preflight: the CORS headers are already set, see cors.ts),
    // without authentication or rate limit: browsers send preflights without credentials.
    app.options(path, (_req, res) => {
      res.set('Allow', methods.join(', ')).status(204).end();
    });
    app.all(path, (_req, res) => sendProblem(res, problems.methodNotAllowed(methods)));
  }
}

const requireJson: RequestHandler = (req, _res, next) => {
  // Without any body there is no media type to refuse: validation answers "body required".
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is(['application/json', 'application/*+json'])) throw problems.unsupportedMediaType();
  next();
};

function validation(route: Route): RequestHandler {
  const checks = (['params', 'query', 'body'] as const)
    .filter((location) => route[location] !== undefined)
    .map((location) => ({ location, check: compileValidator(route[location]!, location) }));

  return (req, res, next) => {
    // Express 5's req.query is a getter over the raw string: validate (and coerce) a copy.
    const input: Record<Location, unknown> = { params: { ...req.params }, query: { ...req.query }, body: req.body ?? (route.optionalBody ? {} : undefined) };
    // A path whose parameters are outside their patterns names nothing that could exist: 404, as
    // for a well-formed id that is not there (SPEC §2), whatever else is wrong with the request.
    const [path] = checks.filter(({ location }) => location === 'params').map(({ check }) => check(input.params));
    if (path && path.length > 0) throw problems.notFound(`No such resource: ${path.map((e) => `${e.parameter} ${e.message}`).join('; ')}.`);
    const errors = checks.filter(({ location }) => location !== 'params').flatMap(({ location, check }) => check(input[location]));
    if (errors.length > 0) throw problems.invalidRequest('The request does not match the schema of this endpoint.', errors);
    res.locals.input = input;
    next();
  };
}
