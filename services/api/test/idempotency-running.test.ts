import { Type } from '@sinclair/typebox';
import express from 'express';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { KeyLiveness, authenticate } from '../src/auth/authenticate';
import { TokenKeys } from '../src/auth/tokens';
import { parseJwtSecrets } from '@entia/config';
import { errorHandler } from '../src/http/error-handler';
import { idempotency } from '../src/http/idempotency';
import { mountRoutes } from '../src/http/mount';
import { Lifecycle } from '../src/http/lifecycle';
import { defineRoute } from '../src/http/route';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

const KEY = 'Idempotency-Key';

/**
 * No real route can be held mid-flight on demand, nor made to fail with a 5xx. So these routes are
 * mounted by the production `mountRoutes` with the production guards (real tokens, real Redis):
 * `/slow` runs until the test opens its gate, `/flaky` fails on its first run.
 */
describe('Idempotency-Key while the first request runs, and after it failed', () => {
  let api: TestApi;
  let tenant: TestTenant;
  let app: express.Express;
  let gate: { opened: Promise<void>; open: () => void };
  let entered: () => void;
  let runs = 0;

  const newGate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };

  beforeAll(async () => {
    api = testApi();
    tenant = await testTenant(api);
    const { config, logger } = api.deps;
    app = express();
    const body = Type.Object({ n: Type.Number() });
    mountRoutes(
      app,
      [
        defineRoute({
          method: 'post',
          path: '/api/{db}/slow',
          operationId: 'slow',
          summary: 'Waits for the test.',
          tags: [],
          params: Type.Object({ db: Type.String() }),
          body,
          // These routes are about idempotency keys: they read no database.
          tenant: false,
          responses: {},
          handler: async ({ body, res }) => {
            runs++;
            entered();
            await gate.opened;
            res.status(201).location('/somewhere').json({ n: body.n, runs });
          },
        }),
        defineRoute({
          method: 'post',
          path: '/api/{db}/flaky',
          operationId: 'flaky',
          summary: 'Fails on its first run.',
          tags: [],
          params: Type.Object({ db: Type.String() }),
          body,
          // These routes are about idempotency keys: they read no database.
          tenant: false,
          responses: {},
          handler: ({ res }) => {
            runs++;
            if (runs === 1) throw new Error('boom');
            res.json({ runs });
          },
        }),
      ],
      {
        bodyLimit: config.BODY_LIMIT_BYTES,
        authenticate: authenticate(TokenKeys.fromConfig(config), new KeyLiveness(api.deps.store, config.KEY_RECHECK_MS)),
        rateLimit: () => (_req, _res, next) => next(),
        idempotency: idempotency({ redis: api.deps.breaker, prefix: config.REDIS_PREFIX, secrets: parseJwtSecrets(config).map(({ secret }) => secret), logger }),
        lifecycle: new Lifecycle(),
        tenantOf: () => Promise.reject(new Error('no route here is given a tenant')),
      },
    );
    app.use(errorHandler(logger));
  });
  afterAll(async () => {
    await tenant.close();
    await api.close();
  });
  beforeEach(() => {
    runs = 0;
    gate = newGate();
  });
  // Should a repeat ever wait at the gate too (the key not held), it must not outlive its test.
  afterEach(() => gate.open());

  // A bounded wait: a repeat that is executed instead of refused would hang at the gate.
  const post = (path: string, key: string, n = 1) =>
    request(app).post(`/api/${tenant.db}/${path}`).set('Authorization', tenant.owner.auth).set(KEY, key).timeout(5_000).send({ n });

  it('a repeat while the first still runs is 409 with Retry-After; afterwards it gets the first answer', async () => {
    const key = randomUUID();
    const running = new Promise<void>((resolve) => (entered = resolve));
    const first = request(app).post(`/api/${tenant.db}/slow`).set('Authorization', tenant.owner.auth).set(KEY, key).send({ n: 1 }).then((res) => res);
    await running;

    const repeat = await post('slow', key);
    expect(repeat.status).toBe(409);
    expect(repeat.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(repeat.headers['retry-after']).toBe('1');
    expect(repeat.body).toMatchObject({ status: 409, type: 'urn:entia:problem:idempotency-key-in-use' });
    // Another body under the running key is still the wrong request, not a wait.
    expect((await post('slow', key, 2)).status).toBe(422);

    gate.open();
    const answered = await first;
    expect(answered.status).toBe(201);
    expect(answered.body).toEqual({ n: 1, runs: 1 });

    const later = await post('slow', key);
    expect(later.status).toBe(201);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.headers.location).toBe('/somewhere');
    expect(later.body).toEqual({ n: 1, runs: 1 });
    expect(runs).toBe(1);
  });

  it('a 5xx answer is not kept: the retry executes again, and its answer is kept', async () => {
    const key = randomUUID();
    const failed = await post('flaky', key);
    expect(failed.status).toBe(500);
    const retried = await post('flaky', key);
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.body).toEqual({ runs: 2 });
    const replayed = await post('flaky', key);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual({ runs: 2 });
    expect(runs).toBe(2);
  });
});
