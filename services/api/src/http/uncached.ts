import type { Request, Response } from 'express';

/**
 * Answers with a body that must reach the caller fresh every time (it holds a signed URL made for
 * this request): no-store, and conditional headers ignored, so not even `If-None-Match: *` can
 * turn it into a 304 without the URL.
 */
export function sendUncached(req: Request, res: Response, body: unknown): void {
  delete req.headers['if-none-match'];
  delete req.headers['if-modified-since'];
  res.set('Cache-Control', 'no-store').json(body);
}
