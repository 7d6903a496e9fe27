import express from 'express';
import { MongoServerError } from 'mongodb';
import { pino } from 'pino';
import request from 'supertest';
import { errorHandler } from '../src/http/error-handler';
import { problems } from '../src/http/problem';

// The error handler on its own, behind routes that fail the ways real code can fail.
function appThatFails() {
  const app = express();
  app.get('/crash', () => {
    throw new Error('secret internal detail at /srv/app.ts:42');
  });
  app.get('/async-crash', async () => {
    await Promise.resolve();
    throw new TypeError('cannot read properties of undefined');
  });
  // What the driver throws when the server gives up on an operation, or FerretDB's SQLite is busy.
  app.get('/db-timeout', () => {
    throw new MongoServerError({ ok: 0, code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' });
  });
  app.get('/db-busy', () => {
    throw new MongoServerError({ ok: 0, code: 1, errmsg: 'UpdateAll database is locked (5) (SQLITE_BUSY)' });
  });
  app.get('/known', () => {
    throw problems.notFound('No entity 1.');
  });
  app.use(errorHandler(pino({ level: 'silent' })));
  return app;
}

describe('error handler', () => {
  it.each(['/crash', '/async-crash'])('%s: 500 problem without internals', async (path) => {
    const res = await request(appThatFails()).get(path);
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({
      type: 'urn:entia:problem:internal',
      title: 'Internal Server Error',
      status: 500,
      detail: expect.any(String),
    });
    expect(res.text).not.toMatch(/secret|\/srv|cannot read|at /);
  });

  it.each(['/db-timeout', '/db-busy'])('%s: 503 with Retry-After, not 500', async (path) => {
    const res = await request(appThatFails()).get(path);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.type).toBe('urn:entia:problem:unavailable');
  });

  it('passes a known problem through', async () => {
    const res = await request(appThatFails()).get('/known');
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe('No entity 1.');
  });
});
