import { createDatabase, hashApiKey, type CreatedDatabase } from '@entia/entities';
import jwt from 'jsonwebtoken';
import { randomBytes, randomUUID } from 'node:crypto';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { stackConnected } from '../../../libs/store/test/stack-reach';

// Rotating the JWT secret without downtime (issue 22, docs/deployment.md "Secret rotation"), as a
// rolling restart does it: two API processes built from the same files, restarted one at a time
// with a new JWT_SECRETS, serving the same clients throughout.
jest.setTimeout(180_000);

const OLD = `old-${randomBytes(24).toString('hex')}`;
const NEW = `new-${randomBytes(24).toString('hex')}`;

interface Api {
  process: Spawned;
  url: string;
}

describe('JWT secret rotation across two API processes', () => {
  let api: TestApi;
  let created: CreatedDatabase;
  const running: Api[] = [];
  const logs: string[] = [];

  /** An API process with these secrets (JWT_SECRET or JWT_SECRETS), sharing the test's data. */
  async function start(secrets: { JWT_SECRET: string } | { JWT_SECRETS: string }): Promise<Api> {
    // A generous dependency timeout: on a loaded test machine a 1 s answer is not a given.
    const { JWT_SECRET: _stackSecret, ...env } = stackEnv({ ...sharedWith(api), PORT: String(await freePort()), DEPENDENCY_TIMEOUT_MS: '10000' });
    const child = spawnService(API_MAIN, { ...env, ...secrets });
    const started = { process: child, url: `http://127.0.0.1:${env.PORT}` };
    running.push(started);
    await waitForStatus(`${started.url}/readyz`, (status) => status === 200, 60_000);
    return started;
  }

  async function stop(which: Api): Promise<void> {
    expect(await which.process.stop()).toBe(0);
    logs.push(which.process.stderr());
    running.splice(running.indexOf(which), 1);
  }

  const signIn = async (at: Api): Promise<string> => {
    const res = await fetch(`${at.url}/api/auth`, { headers: { authorization: `Bearer ${created.apiKey}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { token: string }).token;
  };
  const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid;
  /** An authenticated read: the status a client with this token sees. */
  const read = async (at: Api, token: string) => {
    const res = await fetch(`${at.url}/api/${created.db}/entity/${created.personId}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.text() };
  };
  /** A create with an Idempotency-Key: the same key and body always make the same request. */
  const create = async (at: Api, token: string, key: string) => {
    const res = await fetch(`${at.url}/api/${created.db}/entity`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify([{ type: '_type', reference: created.types.entity }, { type: 'name', string: key }]),
    });
    const body = (await res.json()) as { _id?: string; detail?: string };
    return { status: res.status, id: body._id, detail: body.detail, replayed: res.headers.get('idempotent-replayed') === 'true' };
  };

  // A token as every API issued it before key ids: the API key's hash as the header's kid, no `key` claim.
  const earlierToken = () =>
    jwt.sign({ accounts: { [created.db]: created.personId } }, OLD, { algorithm: 'HS256', audience: 'entia', expiresIn: 3600, keyid: hashApiKey(created.apiKey) });

  beforeAll(async () => {
    api = testApi();
    await stackConnected(api.deps.store);
    created = await createDatabase(api.deps.store, `rot_${randomBytes(5).toString('hex')}`, 'Owner');
  });

  afterAll(async () => {
    for (const left of [...running]) await stop(left);
    await api.deps.store.database(created.db).dropDatabase();
    await api.deps.store.control.dropDatabase();
    await api.close();
  });

  // Filled in as the rotation goes on.
  let a: Api;
  let b: Api;
  let fromA: string;
  let fromB: string;
  const firstKey = randomUUID();
  const secondKey = randomUUID();
  const first: { id?: string } = {};
  const second: { id?: string } = {};

  it('mid-rotation (A: JWT_SECRET=old, B: new,old): B signs with new and accepts A\'s tokens; A does not know new yet', async () => {
    [a, b] = await Promise.all([start({ JWT_SECRET: OLD }), start({ JWT_SECRETS: `new:${NEW},default:${OLD}` })]);
    fromA = await signIn(a);
    fromB = await signIn(b);
    expect([kidOf(fromA), kidOf(fromB)]).toEqual(['default', 'new']);

    expect((await read(b, fromA)).status).toBe(200);
    expect((await read(a, fromA)).status).toBe(200);
    expect((await read(b, fromB)).status).toBe(200);
    // Why the procedure adds the new secret second everywhere before anyone signs with it.
    expect((await read(a, fromB)).status).toBe(401);
    // Tokens issued before key ids are checked with the secret listed as `default`.
    expect((await read(a, earlierToken())).status).toBe(200);
    expect((await read(b, earlierToken())).status).toBe(200);

    // An answer kept by A (sealed with old) is replayed by B, which lists old.
    const made = await create(a, fromA, firstKey);
    expect(made).toMatchObject({ status: 201, replayed: false });
    first.id = made.id;
    expect(await create(b, fromA, firstKey)).toMatchObject({ status: 201, id: first.id, replayed: true });
    // One kept by B is sealed with new.
    const other = await create(b, fromB, secondKey);
    expect(other).toMatchObject({ status: 201, replayed: false });
    second.id = other.id;
  });

  it('once A has new,old too: each accepts the other\'s tokens and replays the other\'s answers', async () => {
    await stop(a);
    a = await start({ JWT_SECRETS: `new:${NEW},default:${OLD}` });
    expect(kidOf(await signIn(a))).toBe('new');
    for (const token of [fromA, fromB, earlierToken()]) {
      expect((await read(a, token)).status).toBe(200);
      expect((await read(b, token)).status).toBe(200);
    }
    expect(await create(a, fromB, secondKey)).toMatchObject({ status: 201, id: second.id, replayed: true });
    expect(await create(a, fromA, firstKey)).toMatchObject({ status: 201, id: first.id, replayed: true });
  });

  it('once old is removed: its tokens are refused with a plain 401, new ones still work', async () => {
    await stop(b);
    b = await start({ JWT_SECRETS: `new:${NEW}` });
    await stop(a);
    a = await start({ JWT_SECRETS: `new:${NEW}` });

    for (const at of [a, b]) {
      expect((await read(at, fromB)).status).toBe(200);
      for (const token of [fromA, earlierToken()]) {
        const refused = await read(at, token);
        expect(refused.status).toBe(401);
        expect(JSON.parse(refused.body)).toMatchObject({ status: 401, detail: expect.stringMatching(/token is invalid or expired/) });
        expect(refused.body).not.toContain(OLD);
        expect(refused.body).not.toContain(NEW);
      }
    }
    // A fresh sign-in is the way back.
    expect((await read(b, await signIn(a))).status).toBe(200);
    // Answers sealed with new are still replayed; one sealed with a retired secret is a clear 422,
    // never executed twice (in a real rotation it has expired: answers are kept 24 h, tokens live 48 h).
    expect(await create(b, fromB, secondKey)).toMatchObject({ status: 201, id: second.id, replayed: true });
    const retired = await create(b, fromB, firstKey);
    expect(retired).toMatchObject({ status: 422, detail: expect.stringMatching(/can no longer be replayed/) });
  });

  it('never writes a secret to its log', async () => {
    for (const left of [...running]) await stop(left);
    expect(logs.length).toBeGreaterThanOrEqual(5);
    for (const log of logs) {
      expect(log).not.toContain(OLD);
      expect(log).not.toContain(NEW);
    }
  });
});
