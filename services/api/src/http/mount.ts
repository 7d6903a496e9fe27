import express, { type Express, type RequestHandler } from 'express';
import { problems, sendProblem } from './problem';
import type { Route } from './route';
import { compileValidator, type Location } from './validate';

export interface MountOptions {
  bodyLimit: number;
  authenticate: RequestHandler;
  rateLimit: RequestHandler;
}

/** `/api/jobs/{id}` → `/api/jobs/:id` */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/**
 * Registers every route with its guards in a fixed order: authentication (so limits can count per
 * API key), rate limit, media type, body parsing (bounded), validation of params/query/body, handler. Then answers 405 with `Allow` for any
 * other method on a known path.
 */
export function mountRoutes(app: Express, routes: Route[], options: MountOptions): void {
  const json = express.json({ limit: options.bodyLimit, type: ['application/json', 'application/*+json'] });
  const allowed = new Map<string, string[]>();

  for (const route of routes) {
    const path = expressPath(route.path);
    allowed.set(path, [...(allowed.get(path) ?? []), route.method.toUpperCase()]);
    const guards: RequestHandler[] = [];
    if (route.auth !== 'none') guards.push(options.authenticate);
    if (route.rateLimited !== false) guards.push(options.rateLimit);
    if (route.body) guards.push(requireJson, json);
    guards.push(validation(route));
    app[route.method](path, ...guards, async (req, res) => {
      const input = res.locals.input as { params: never; query: never; body: never };
      await route.handler({ ...input, req, res });
    });
  }

  for (const [path, methods] of allowed) {
    if (methods.includes('GET')) methods.push('HEAD');
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
    const input: Record<Location, unknown> = { params: { ...req.params }, query: { ...req.query }, body: req.body };
    const errors = checks.flatMap(({ location, check }) => check(input[location]));
    if (errors.length > 0) throw problems.invalidRequest('The request does not match the schema of this endpoint.', errors);
    res.locals.input = input;
    next();
  };
}
