import type { CorsOrigins } from '@entia/config';
import cors from 'cors';
import type { RequestHandler } from 'express';

// What a browser page may send and read beyond the CORS-safelisted basics.
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id'];
const EXPOSED_HEADERS = ['ETag', 'Location', 'Retry-After', 'X-Request-Id', 'X-Cache', 'Idempotent-Replayed'];

/**
 * CORS headers on every answer, errors included (mounted before anything that can answer), so a
 * page can read why it was refused. Credentials are bearer tokens the page sends itself, never
 * cookies, so `*` is as safe as a list and no credentialed CORS is offered. A preflight is not
 * answered here (`preflightContinue`): it passes on to the route table, which answers `OPTIONS` on
 * every known path with 204 and `404` elsewhere, after the shutdown check like any request.
 * An origin not in the list gets no `Access-Control-Allow-Origin`, and the browser refuses.
 */
export function corsHeaders(origins: CorsOrigins): RequestHandler {
  // No origin allowed: no CORS header at all (the package would read an empty list as "any").
  if (origins !== '*' && origins.length === 0) return (_req, _res, next) => next();
  return cors({
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    // Chromium keeps a preflight at most 2 h; 10 min spares most of them and lets a change of
    // CORS_ORIGINS reach browsers soon.
    maxAge: 600,
    preflightContinue: true,
  });
}
