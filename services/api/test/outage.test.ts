import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerretDb, startRedis, type ManagedServer } from '@entia/stack';
import { SPEC_LIMIT_MS, Timings, expectFastUnavailable, timed, until, type Answer } from './faults';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { testApi } from './support';
import { testTenant } from './tenant';

const READINESS_TIMEOUT_MS = 1500;
// The default, set explicitly: how long one Redis command may wait before Redis counts as hung.
const DEPENDENCY_TIMEOUT_MS = 1000;
// The worker waits longer for its dependencies than its probe may take: only the probe's own bound
// can then make /readyz answer in time while one of them hangs.
const WORKER = { READINESS_TIMEOUT_MS: 500, DEPENDENCY_TIMEOUT_MS: 3000 };
// A probe is bounded by READINESS_TIMEOUT_MS; this much more covers the HTTP round trip on a busy machine.
const PROBE_SLACK_MS = 1000;
// How long a restarted or resumed server, and the clients reconnecting to it, may take to serve again.
const RECOVERY_MS = 20_000;

// The API and the worker run as real processes against a Redis and a MongoDB-protocol server of
// their own, which the tests kill, pause (SIGSTOP: connections accepted, nothing answered) and
// bring back; the shared test stack's servers are never touched.
describe('the API and the worker through MongoDB and Redis outages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-outage-'));
  const timings = new Timings();
  let redis: ManagedServer & { url: string };
  let mongo: ManagedServer & { url: string };
  let api: Spawned;
  let worker: Spawned;
  let base: string;
  let workerBase: string;
  let db: string;
  let auth: string;
  let noteType: string;
  let noteId: string;

  beforeAll(async () => {
    [redis, mongo] = await Promise.all([startRedis({ dir: join(dir, 'redis') }), startFerretDb({ dir: join(dir, 'mongo') })]);
    // The data is made by the API's own code in-process; from then on only the spawned processes talk to these servers.
    const setup = testApi({ MONGODB_URL: mongo.url, REDIS_URL: redis.url });
    const t = await testTenant(setup);
    noteType = await t.defineType('note', [{ name: 'title', type: 'string' }]);
    noteId = (await t.create([{ type: '_type', reference: noteType }, { type: 'title', string: 'before' }])).body._id;
    [db, auth] = [t.db, t.owner.auth];
    const controlDb = setup.deps.config.MONGODB_CONTROL_DB;
    await t.close();
    await setup.close();

    const [port, workerPort] = [await freePort(), await freePort()];
    [base, workerBase] = [`http://127.0.0.1:${port}`, `http://127.0.0.1:${workerPort}`];
    const env = {
      REDIS_URL: redis.url,
      MONGODB_URL: mongo.url,
      READINESS_TIMEOUT_MS: String(READINESS_TIMEOUT_MS),
      DEPENDENCY_TIMEOUT_MS: String(DEPENDENCY_TIMEOUT_MS),
      REDIS_PREFIX: `outage${randomBytes(4).toString('hex')}`,
      MONGODB_CONTROL_DB: controlDb,
    };
    api = spawnService(API_MAIN, stackEnv({ ...env, PORT: String(port) }));
    worker = spawnService(
      WORKER_MAIN,
      stackEnv({
        ...env,
        WORKER_PORT: String(workerPort),
        READINESS_TIMEOUT_MS: String(WORKER.READINESS_TIMEOUT_MS),
        DEPENDENCY_TIMEOUT_MS: String(WORKER.DEPENDENCY_TIMEOUT_MS),
      }),
    );
    await Promise.all([waitForStatus(`${base}/readyz`, (s) => s === 200, 20_000), waitForStatus(`${workerBase}/readyz`, (s) => s === 200, 20_000)]);
  }, 120_000);

  afterAll(async () => {
    timings.print('times to an answer, MongoDB and Redis outages (ms)');
    await Promise.allSettled([api?.stop(), worker?.stop()]);
    await Promise.allSettled([redis?.stop(), mongo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const headers = () => ({ authorization: auth, 'content-type': 'application/json' });
  let variant = 0;
  // Each list request asks for another `limit`, so it misses the response cache and needs MongoDB.
  const list = () => timed(`${base}/api/${db}/entity?_type.reference=${noteType}&limit=${100 + ++variant}`, { headers: headers() });
  const count = async () => Number((await timed(`${base}/api/${db}/entity?_type.reference=${noteType}&limit=0`, { headers: headers() })).body.count);
  const read = () => timed(`${base}/api/${db}/entity/${noteId}`, { headers: headers() });
  const create = (title: string) =>
    timed(`${base}/api/${db}/entity`, { method: 'POST', headers: headers(), body: JSON.stringify([{ type: '_type', reference: noteType }, { type: 'title', string: title }]) });

  /** Both probes answer within their READINESS_TIMEOUT_MS, 200 naming exactly the dependencies that are down. */
  async function expectDegraded(scenario: string, down: string[]): Promise<void> {
    for (const [name, url, all, bound] of [
      ['API', `${base}/readyz`, ['mongodb', 'redis', 'storage'], READINESS_TIMEOUT_MS],
      ['worker', `${workerBase}/readyz`, ['mongodb', 'redis'], WORKER.READINESS_TIMEOUT_MS],
    ] as const) {
      const probe = timings.record(`${scenario}: ${name} /readyz`, await timed(url));
      expect(probe.ms).toBeLessThan(bound + PROBE_SLACK_MS);
      expect({ name, status: probe.status, body: probe.body }).toEqual({
        name,
        status: 200,
        body: {
          status: 'degraded',
          degraded: down,
          checks: Object.fromEntries(all.map((d) => [d, down.includes(d) ? 'down' : 'up'])),
          // Why, in one line each: what the client said (refused, timed out…), or the probe's own time limit.
          reasons: Object.fromEntries(down.map((d) => [d, expect.stringMatching(/\S/)])),
        },
      });
    }
  }

  async function expectRecovered(): Promise<void> {
    await until(() => create('after'), (answer) => answer.status === 201, RECOVERY_MS);
    expect((await list()).status).toBe(200);
    await until(() => timed(`${base}/readyz`), (answer) => answer.body.status === 'ready', RECOVERY_MS);
    await until(() => timed(`${workerBase}/readyz`), (answer) => answer.body.status === 'ready', RECOVERY_MS);
  }

  it('MongoDB killed: a GET and a POST are 503 with Retry-After within 2.5 s; readiness stays 200 naming it; all back after a restart', async () => {
    expect((await list()).status).toBe(200);
    await mongo.kill();
    expectFastUnavailable(timings.record('mongodb killed: GET list', await list()));
    expectFastUnavailable(timings.record('mongodb killed: POST entity', await create('during')));
    await expectDegraded('mongodb killed', ['mongodb']);
    expect(api.child.exitCode).toBeNull();

    await mongo.restart();
    await expectRecovered();
  }, 90_000);

  it('MongoDB paused: requests in flight and new ones are 503 within 2.5 s, never a hang; back after SIGCONT', async () => {
    expect((await list()).status).toBe(200);
    mongo.pause();
    try {
      // Sent the moment the server stops answering: they wait on connections that will never answer.
      const [inFlightRead, inFlightWrite] = await Promise.all([list(), create('paused')]);
      expectFastUnavailable(timings.record('mongodb paused: GET list, in flight', inFlightRead));
      expectFastUnavailable(timings.record('mongodb paused: POST entity, in flight', inFlightWrite));
      expectFastUnavailable(timings.record('mongodb paused: GET list, later', await list()));
      await expectDegraded('mongodb paused', ['mongodb']);
    } finally {
      mongo.resume();
    }
    await expectRecovered();
  }, 90_000);

  it('Redis killed: reads are answered 200 (limits and cache skipped), writes 503 with Retry-After storing nothing, within 2.5 s; back after a restart', async () => {
    const before = await count();
    await redis.kill();
    const answers: [string, Answer][] = [];
    for (let i = 0; i < 3; i++) answers.push(['GET list', await list()], ['GET entity', await read()]);
    for (const [what, answer] of answers) {
      timings.record(`redis killed: ${what}`, answer);
      expect({ what, status: answer.status }).toEqual({ what, status: 200 });
      expect(answer.ms).toBeLessThan(SPEC_LIMIT_MS);
    }
    expectFastUnavailable(timings.record('redis killed: POST entity', await create('during')));
    expect(await count()).toBe(before);
    await expectDegraded('redis killed', ['redis']);

    await redis.restart();
    await expectRecovered();
  }, 90_000);

  it('Redis paused: every request is answered within 2.5 s however many Redis calls it makes, writes 503; back after SIGCONT', async () => {
    const before = await count();
    redis.pause();
    try {
      // One after another: the first finds Redis hung (one command timeout), the rest must not wait again.
      const answers: [string, Answer][] = [];
      for (let i = 0; i < 3; i++) answers.push(['GET list', await list()], ['GET entity', await read()]);
      for (const [what, answer] of answers) {
        timings.record(`redis paused: ${what}`, answer);
        expect({ what, status: answer.status }).toEqual({ what, status: 200 });
        // A read makes four Redis calls (rate limit, cache token, entry, store): at most one of them may wait.
        expect(answer.ms).toBeLessThan(Math.min(SPEC_LIMIT_MS, 2 * DEPENDENCY_TIMEOUT_MS));
      }
      expectFastUnavailable(timings.record('redis paused: POST entity', await create('paused')));
      await expectDegraded('redis paused', ['redis']);
    } finally {
      redis.resume();
    }
    await expectRecovered();
    expect(await count()).toBe(before + 1);
  }, 90_000);

  it('an API started while MongoDB is unreachable is not ready, and says why', async () => {
    const [port, nowhere] = [await freePort(), await freePort()];
    const lonely = spawnService(API_MAIN, stackEnv({ PORT: String(port), MONGODB_URL: `mongodb://127.0.0.1:${nowhere}/`, REDIS_URL: redis.url, READINESS_TIMEOUT_MS: String(READINESS_TIMEOUT_MS) }));
    try {
      await waitForStatus(`http://127.0.0.1:${port}/healthz`, (s) => s === 200, 20_000);
      const probe = await timed(`http://127.0.0.1:${port}/readyz`);
      expect(probe.status).toBe(503);
      expect(probe.body.detail).toContain('mongodb');
      expect(probe.body.checks).toEqual({ mongodb: 'down', redis: 'up', storage: 'up' });
      expect(probe.ms).toBeLessThan(READINESS_TIMEOUT_MS + PROBE_SLACK_MS);
    } finally {
      await lonely.stop();
    }
  }, 60_000);
});
