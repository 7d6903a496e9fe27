import { closeDeps, createApp, createLogger, openDeps } from '@entia/api';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { testConfig, type TestApi } from './support';
import { signIn, testTenant, writtenOf, type TestTenant } from './tenant';

/**
 * Logs carry no secret (issue 14; SPEC §12): the request log (pino-http then) used to write every request's
 * `Authorization` header, so each API key exchanged at /api/auth and every JWT was in the log in
 * plain text, and so was the signed `Location` of a download redirect. A whole flow runs against
 * the real app with its log captured at `trace` — key exchange, writes (a generated API key and
 * its idempotent replay), a file uploaded through its signed URL and downloaded through the
 * redirect, and failures — and no key, token, key hash, signature or storage credential it used
 * may appear in it.
 */
describe('the API log carries no secret', () => {
  const lines: string[] = [];
  let api: TestApi;
  let t: TestTenant;
  const secrets = new Map<string, string>();
  const keep = (what: string, value: string | undefined) => {
    if (!value) throw new Error(`${what}: nothing to keep`);
    secrets.set(what, value);
  };
  const hash = (key: string) => createHash('sha256').update(key).digest('hex');

  beforeAll(async () => {
    const config = testConfig({ RATE_LIMIT_MAX: '1000000' });
    const deps = openDeps(config, createLogger('trace', { write: (line: string) => void lines.push(line) }));
    api = { app: createApp(deps), deps, close: () => closeDeps(deps) };
    for (const name of ['JWT_SECRET', 'S3_ACCESS_KEY', 'S3_SECRET_KEY'] as const) keep(name, config[name]);

    // Key exchange: the first person's key (made by create-database), with and without ?db=.
    t = await testTenant(api);
    keep('owner API key', t.owner.apiKey);
    keep('owner API key hash', hash(t.owner.apiKey));
    keep('owner token', t.owner.token);
    const scoped = await request(api.app).get(`/api/auth?db=${t.db}`).set('Authorization', `Bearer ${t.owner.apiKey}`);
    expect(scoped.status).toBe(200);
    keep('owner token for one database', scoped.body.token);

    // Writes: a type with a file property, a person, and API keys generated for them.
    const doc = await t.defineType('doc', [
      { name: 'title', type: 'string' },
      { name: 'attachment', type: 'file' },
    ]);
    const ann = await t.newPerson('Ann');
    keep('Ann\'s first API key', ann.apiKey);
    keep('Ann\'s first token', ann.token);
    const idempotencyKey = randomUUID();
    keep('Idempotency-Key of a key generation', idempotencyKey);
    const generate = () =>
      request(api.app).post(`/api/${t.db}/entity/${ann.id}`).set('Authorization', t.owner.auth).set('Idempotency-Key', idempotencyKey).send([{ type: '_api_key' }]);
    const generated = await generate();
    const replayed = await generate();
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    const second = writtenOf(generated.body, '_api_key')[0]!;
    expect(writtenOf(replayed.body, '_api_key')[0]!.string).toBe(second.string);
    keep('Ann\'s second API key', second.string);
    keep('Ann\'s second API key hash', hash(second.string));
    const annAgain = await signIn(api, ann.id, second.string);
    keep('Ann\'s second token', annAgain.token);
    expect((await request(api.app).get(`/api/${t.db}/entity?limit=1`).set('Authorization', annAgain.auth)).status).toBe(200);

    // A file: its value, the PUT to the signed upload URL, the signed download URL and redirect.
    const bytes = randomBytes(64);
    const created = await t.create([
      { type: '_type', reference: doc },
      { type: 'title', string: 'report' },
      { type: 'attachment', filename: 'report.bin', filesize: bytes.length, filetype: 'application/octet-stream' },
    ]);
    expect(created.status).toBe(201);
    const file = created.body.properties.attachment[0];
    const uploadUrl = new URL(file.upload.url);
    keep('upload signature', uploadUrl.searchParams.get('X-Amz-Signature') ?? undefined);
    const put = await fetch(file.upload.url, { method: 'PUT', headers: file.upload.headers, body: bytes });
    expect(put.status).toBe(200);
    const value = await request(api.app).get(`/api/${t.db}/property/${file._id}`).set('Authorization', t.owner.auth);
    keep('download signature', new URL(value.body.url).searchParams.get('X-Amz-Signature') ?? undefined);
    const redirect = await request(api.app).get(`/api/${t.db}/property/${file._id}?download=true`).set('Authorization', t.owner.auth);
    expect(redirect.status).toBe(302);
    keep('redirect signature', new URL(redirect.headers.location!).searchParams.get('X-Amz-Signature') ?? undefined);

    // Failures: an unknown key, a forged token, a token in the query string, a cookie, a body
    // holding a key that does not parse, a revoked key's token.
    const unknownKey = randomBytes(32).toString('base64url');
    keep('unknown API key', unknownKey);
    expect((await request(api.app).get('/api/auth').set('Authorization', `Bearer ${unknownKey}`)).status).toBe(401);
    const [head, payload, signature] = t.owner.token.split('.');
    const forged = `${head}.${payload}.${Buffer.from(signature!, 'base64url').reverse().toString('base64url')}`;
    keep('forged token', forged);
    expect((await request(api.app).get(`/api/${t.db}/entity`).set('Authorization', `Bearer ${forged}`)).status).toBe(401);
    expect((await request(api.app).get(`/api/${t.db}/entity?access_token=${t.owner.token}&X-Amz-Signature=${secrets.get('upload signature')}`)).status).toBe(400);
    const cookie = randomBytes(16).toString('hex');
    keep('cookie', cookie);
    expect((await request(api.app).get(`/api/${t.db}/entity?limit=1`).set('Cookie', `session=${cookie}`).set('Authorization', t.owner.auth)).status).toBe(200);
    const broken = await request(api.app)
      .post(`/api/${t.db}/entity/${ann.id}`)
      .set('Authorization', t.owner.auth)
      .set('Content-Type', 'application/json')
      .send(`[{"type": "name", "string": "${second.string}"`);
    expect(broken.status).toBe(400);
    const keyValue = (await request(api.app).get(`/api/${t.db}/entity/${ann.id}`).set('Authorization', t.owner.auth)).body.entity._api_key[0]._id;
    expect((await request(api.app).delete(`/api/${t.db}/property/${keyValue}`).set('Authorization', t.owner.auth)).status).toBe(200);
    await request(api.app).get(`/api/${t.db}/entity/${ann.id}`).set('Authorization', ann.auth);
    expect((await request(api.app).get('/api/auth').set('Authorization', `Bearer ${ann.apiKey}`)).status).toBe(401);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await api?.close();
  });

  it('logged the flow: each request with its headers and URL, the redirect with its Location', () => {
    const log = lines.join('');
    const requests = lines.map((line) => JSON.parse(line) as { req?: { url: string; headers: Record<string, string> }; res?: { headers: Record<string, string> } });
    const completed = requests.filter((entry) => entry.req && entry.res);
    expect(completed.length).toBeGreaterThanOrEqual(20);
    expect(completed.some((entry) => entry.req!.url === '/api/auth' && entry.req!.headers.authorization === '[Redacted]')).toBe(true);
    const download = completed.find((entry) => entry.req!.url.endsWith('?download=true'));
    const location = download?.res?.headers.location;
    expect(location).toMatch(/^https?:\/\/.+\?/);
    expect(location).toContain('X-Amz-Credential=[Redacted]');
    expect(location).toContain('X-Amz-Signature=[Redacted]');
    expect(log).toContain('"cookie":"[Redacted]"');
    expect(log).toContain('access_token=[Redacted]');
  });

  it('holds none of the keys, tokens, key hashes, signatures and credentials used', () => {
    const log = lines.join('');
    const found = [...secrets].filter(([, secret]) => log.includes(secret)).map(([what]) => what);
    expect(found).toEqual([]);
    // Nor any token's signature on its own, nor any key's first 16 characters.
    const parts = [...secrets].flatMap(([what, secret]) =>
      what.includes('token') ? [[`${what}, signature part`, secret.split('.')[2]!]] : what.includes('API key') && !what.includes('hash') ? [[`${what}, prefix`, secret.slice(0, 16)]] : [],
    );
    expect(parts.filter(([, part]) => log.includes(part!)).map(([what]) => what)).toEqual([]);
  });
});
