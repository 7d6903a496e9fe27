/**
 * A ceiling's server, in a process of its own as the API is (in the benchmark's process it would
 * share one core with the load generator and be measured slower than it is): told by its parent
 * which server (`http`: bare Node; `express`: the API's express 5 with one route) and which bytes,
 * it listens on a free port of 127.0.0.1, says which, and answers every request with those bytes.
 */
import express from 'express';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export type CeilingKind = 'http' | 'express';
export const CONTENT_TYPE = 'application/json; charset=utf-8';

function listener(kind: CeilingKind, body: Buffer): RequestListener {
  if (kind === 'http') {
    return (_req, reply) => {
      reply.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': body.length });
      reply.end(body);
    };
  }
  // Set as the API sets it: no `X-Powered-By`, no ETag computed.
  const app = express().disable('x-powered-by').set('etag', false);
  app.get('/', (_req, res) => {
    res.set('content-type', CONTENT_TYPE).send(body);
  });
  return app;
}

process.once('message', ({ kind, body }: { kind: CeilingKind; body: string }) => {
  const server = createServer(listener(kind, Buffer.from(body, 'base64')));
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
});
// Gone with the benchmark, however it ends.
process.on('disconnect', () => process.exit(0));
