import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

// A caller's id is kept so logs can be joined across services, but only if it is harmless in a log
// line and a header; anything else is replaced rather than echoed.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's id: a safe incoming X-Request-Id, else a new one; echoed back either way. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}
