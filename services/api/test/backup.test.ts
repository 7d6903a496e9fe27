import { deleteDatabase } from '@entia/entities';
import { SCHEMA_VERSION } from '@entia/store';
import { BSON, Int32, ObjectId } from 'mongodb';
import { startWorker, type RunningWorker } from '@entia/worker';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import request from 'supertest';
import { COMMANDS } from '../src/cli/admin/commands';
import { dispatch } from '../src/cli/admin/dispatch';
import { eventually } from './eventually';
import { sharedWith, testApi, type TestApi } from './support';
import { signIn, testTenant, writtenOf, type TestTenant } from './tenant';

// Issue 22: `entia-admin export` / `import`, the backup path that works on any engine. The round
// trip runs the commands as an operator runs them: the built admin.js, spawned with the stack's
// environment and this file's control database and Redis prefix. The refusals run the same
// commands in this process (`dispatch`, what admin.js calls, exit code and output included),
// which spares a Node start and the loading of every dependency per case.
jest.setTimeout(180_000);

const ADMIN = resolve(__dirname, '../dist/cli/admin.js');
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Upload {
  url: string;
  method: string;
  headers: Record<string, string>;
}

describe('entia-admin export and import (issue 22)', () => {
  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let work: string;
  let exported: string;
  const ids: Record<string, string> = {};
  /** What a client sees of the database before the export. */
  let before: Snapshot;

  function admin(...args: string[]): Promise<Ran> {
    return new Promise((done, fail) => {
      const child = spawn(process.execPath, [ADMIN, ...args], { env: { ...process.env, ...sharedWith(api), LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', fail);
      child.on('close', (code) => done({ code, stdout, stderr }));
    });
  }

  /** The same command run in this process, as admin.js runs it (its exit code, its stdout and stderr). */
  function adminHere(...args: string[]): Promise<Ran> {
    return adminWith({}, ...args);
  }

  async function adminWith(env: Record<string, string>, ...args: string[]): Promise<Ran> {
    let stdout = '';
    let stderr = '';
    const sink = (write: (text: string) => void) =>
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          write(chunk.toString());
          done();
        },
      });
    const code = await dispatch(COMMANDS, args, {
      out: sink((text) => (stdout += text)),
      err: sink((text) => (stderr += text)),
      in: Readable.from([]),
      interactive: false,
      env: { ...process.env, ...sharedWith(api), LOG_LEVEL: 'warn', ...env },
    });
    return { code, stdout, stderr };
  }

  const get = (db: string, auth: string, path: string) => request(api.app).get(`/api/${db}${path}`).set('Authorization', auth);

  interface Snapshot {
    entities: Record<string, unknown>;
    history: Record<string, unknown>;
    files: Record<string, { sha256: string; type: string | null }>;
  }

  /** Every tracked entity as the API gives it, its history, and the bytes of its files downloaded through their signed URLs. */
  async function snapshot(db: string, auth: string): Promise<Snapshot> {
    const shot: Snapshot = { entities: {}, history: {}, files: {} };
    for (const [name, id] of Object.entries(ids)) {
      const entity = await get(db, auth, `/entity/${id}`);
      expect(entity.status).toBe(200);
      shot.entities[name] = entity.body;
      const history = await get(db, auth, `/entity/${id}/history`);
      expect(history.status).toBe(200);
      shot.history[name] = history.body;
      for (const values of Object.values(entity.body.entity) as unknown[]) {
        if (!Array.isArray(values)) continue;
        for (const value of values as { _id: string; filename?: string }[]) {
          if (value.filename === undefined) continue;
          const property = await get(db, auth, `/property/${value._id}`);
          expect(property.status).toBe(200);
          const download = await fetch(property.body.url as string);
          expect(download.status).toBe(200);
          shot.files[value._id] = { sha256: sha(Buffer.from(await download.arrayBuffer())), type: download.headers.get('content-type') };
        }
      }
    }
    return shot;
  }

  async function createEntity(values: object[]): Promise<{ _id: string; properties: Record<string, { _id: string; upload?: Upload }[]> }> {
    const res = await t.create(values);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function change(id: string, values: object[]): Promise<{ properties: { _id: string; type: string; upload?: Upload }[] }> {
    const res = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send(values);
    if (res.status !== 200) throw new Error(`write failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function upload(target: Upload, bytes: Uint8Array): Promise<void> {
    const res = await fetch(target.url, { method: target.method, headers: target.headers, body: bytes });
    expect(res.status).toBe(200);
  }

  async function objectKeys(db: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const page of api.deps.objects.list(`${db}/`)) keys.push(...page.map((object) => object.key));
    return keys.sort();
  }

  /** Nothing of `db` anywhere: no registry record, no collection, no credential, no object. */
  async function expectNothingOf(db: string): Promise<void> {
    const { store } = api.deps;
    expect(await store.registry.database(db)).toBeUndefined();
    expect(await store.database(db).listCollections().toArray()).toEqual([]);
    expect(await store.control.collection('api_keys').countDocuments({ db })).toBe(0);
    expect(await objectKeys(db)).toEqual([]);
  }

  const pendingOf = (db: string) => api.deps.store.control.collection('pending').countDocuments({ db });
  const freshName = () => `b_${randomBytes(5).toString('hex')}`;

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    work = await mkdtemp(join(tmpdir(), 'entia-backup-'));
    t = await testTenant(api);
    ids.owner = t.owner.id;
    ids.authorType = await t.defineType('author', [{ name: 'name', type: 'string', search: true }]);
    ids.bookType = await t.defineType('book', [
      { name: 'title', type: 'string', multilingual: true, search: true },
      { name: 'author', type: 'reference' },
      { name: 'pages', type: 'number' },
      { name: 'cover', type: 'file' },
      { name: 'attachment', type: 'file', list: true },
      { name: 'leaves', type: 'number', formula: 'pages pages MULTIPLY' },
    ]);
    ids.author = (await createEntity([{ type: '_type', reference: ids.authorType }, { type: 'name', string: 'Ada Lovelace' }]))._id;

    const cover = randomBytes(3000);
    const book = await createEntity([
      { type: '_type', reference: ids.bookType },
      { type: 'title', string: 'Märkmed', language: 'et' },
      { type: 'title', string: 'Notes', language: 'en' },
      { type: 'author', reference: ids.author },
      { type: 'pages', number: 12 },
      { type: 'cover', filename: 'cover.png', filesize: cover.length, filetype: 'image/png' },
    ]);
    ids.book = book._id;
    await upload(book.properties.cover![0]!.upload!, cover);
    // History of several changes: a value added, one overwritten, a file added, one deleted.
    const added = await change(ids.book, [{ type: 'pages', number: 20 }]);
    const note = randomBytes(1500);
    const second = await change(ids.book, [{ type: 'attachment', filename: 'notes.txt', filesize: note.length, filetype: 'text/plain' }]);
    await upload(second.properties.find((value) => value.type === 'attachment')!.upload!, note);
    const gone = randomBytes(100);
    const third = await change(ids.book, [{ type: 'attachment', filename: 'gone.bin', filesize: gone.length, filetype: 'application/octet-stream' }]);
    const goneValue = third.properties.find((value) => value.type === 'attachment')!;
    await upload(goneValue.upload!, gone);
    expect((await request(api.app).delete(`/api/${t.db}/property/${goneValue._id}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expect(added.properties.map((value) => value.type)).toContain('pages');
    ids.other = (
      await createEntity([
        { type: '_type', reference: ids.bookType },
        { type: 'title', string: 'Sketch', language: 'en' },
        { type: 'author', reference: ids.author },
      ])
    )._id;

    // The worker settles what the writes left (labels, the deleted file's object): the copy is then of a settled database.
    await eventually(() => pendingOf(t.db), (count) => count === 0);
    await eventually(() => objectKeys(t.db), (keys) => !keys.some((key) => key.endsWith(goneValue._id)));
    before = await snapshot(t.db, t.owner.auth);
    exported = join(work, 'export');
  });

  afterAll(async () => {
    await worker?.close();
    // The test's database and control database go (their objects with them).
    if (t && api) {
      await deleteDatabase({ store: api.deps.store, objects: api.deps.objects, redis: [api.deps.redis], redisPrefix: api.deps.config.REDIS_PREFIX }, t.db).catch(() => undefined);
      await api.deps.store.control.dropDatabase();
    }
    await t?.close();
    await api?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('export, delete-database, import: identical entities, values, history and downloads; the old API key works again', async () => {
    expect(Object.keys(before.files)).toHaveLength(2);
    expect((before.entities.book as { entity: Record<string, unknown> }).entity.leaves).toBeDefined();

    const out = await admin('export', t.db, '--out', exported);
    expect(out).toMatchObject({ code: 0 });
    expect(out.stdout).toContain(`Exported "${t.db}"`);
    const manifest = JSON.parse(await readFile(join(exported, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'entia-export', formatVersion: 1, db: t.db, schemaVersion: expect.any(Number) });
    expect(manifest.files.objects.count).toBe(2);

    const deleted = await admin('delete-database', t.db, '--yes');
    expect(deleted.code).toBe(0);
    await expectNothingOf(t.db);
    expect((await request(api.app).get('/api/auth').set('Authorization', `Bearer ${t.owner.apiKey}`)).status).toBe(401);

    const imported = await admin('import', '--from', exported);
    expect(imported).toMatchObject({ code: 0 });
    expect(imported.stdout).toContain(`as "${t.db}"`);

    const owner = await signIn(api, t.owner.id, t.owner.apiKey);
    expect(await snapshot(t.db, owner.auth)).toEqual(before);
    // Still a working database: a new write lands and its history follows the imported one.
    const res = await request(api.app).post(`/api/${t.db}/entity/${ids.book}`).set('Authorization', owner.auth).send([{ type: 'pages', number: 21 }]);
    expect(res.status).toBe(200);
    expect(writtenOf(res.body, 'leaves')[0]!.number).toBe(441);
  });

  it('refuses a database that exists or holds anything, writing nothing', async () => {
    const count = await api.deps.store.database(t.db).collection('entity').countDocuments();
    const into = await adminHere('import', '--from', exported);
    expect(into.code).toBe(1);
    expect(into.stderr).toMatch(/exists.*delete-database/);
    expect(await api.deps.store.database(t.db).collection('entity').countDocuments()).toBe(count);

    // A name with no registry record, but a stray collection of its own.
    const stray = freshName();
    await api.deps.store.database(stray).collection('leftover').insertOne({ x: 1 });
    try {
      const refused = await adminHere('import', '--from', exported, '--as', stray);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/not empty/);
      expect(await api.deps.store.registry.database(stray)).toBeUndefined();
      expect((await api.deps.store.database(stray).listCollections().toArray()).map((c) => c.name)).toEqual(['leftover']);
      expect(await objectKeys(stray)).toEqual([]);
    } finally {
      await api.deps.store.database(stray).dropDatabase();
    }
  });

  /** A copy of the export, changed by `edit`; `lines` edits rewrite the manifest's checksum too, so a rule of the content is what refuses. */
  async function tampered(edit: (dir: string) => Promise<void>): Promise<string> {
    const dir = join(work, `tampered-${randomBytes(4).toString('hex')}`);
    await cp(exported, dir, { recursive: true });
    await edit(dir);
    return dir;
  }

  async function rewriteLines(dir: string, key: string, file: string, change: (lines: string[]) => string[]): Promise<void> {
    const text = (await readFile(join(dir, file), 'utf8')).split('\n').filter((line) => line.length > 0);
    const body = Buffer.from(change(text).map((line) => `${line}\n`).join(''), 'utf8');
    await writeFile(join(dir, file), body);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    manifest.files[key] = { count: change(text).length, bytes: body.length, sha256: sha(body) };
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  }

  async function editManifest(dir: string, change: (manifest: Record<string, unknown>) => void): Promise<void> {
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    change(manifest);
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  }

  const hostile: [string, (dir: string) => Promise<void>, RegExp][] = [
    [
      'a damaged NDJSON file',
      async (dir) => {
        const path = join(dir, 'entities.ndjson');
        const bytes = await readFile(path);
        const middle = Math.floor(bytes.length / 2);
        bytes[middle] = bytes[middle]! ^ 1;
        await writeFile(path, bytes);
      },
      /entities\.ndjson.*(checksum|not a JSON|Extended JSON)/,
    ],
    ['a missing object', async (dir) => unlink(join(dir, 'objects', ...JSON.parse((await readFile(join(dir, 'objects.ndjson'), 'utf8')).split('\n')[0]!).key.split('/'))), /missing/],
    [
      "an object's bytes changed",
      async (dir) => {
        const entry = JSON.parse((await readFile(join(dir, 'objects.ndjson'), 'utf8')).split('\n')[0]!);
        const path = join(dir, 'objects', ...(entry.key as string).split('/'));
        const bytes = await readFile(path);
        bytes[0] = bytes[0]! ^ 0xff;
        await writeFile(path, bytes);
      },
      /object .* does not match its checksum/,
    ],
    ['a missing data file', async (dir) => unlink(join(dir, 'history.ndjson')), /history\.ndjson is missing/],
    ['no manifest', async (dir) => unlink(join(dir, 'manifest.json')), /manifest\.json cannot be read/],
    ['a manifest naming an invalid database', (dir) => editManifest(dir, (m) => void (m.db = '../evil')), /not a valid database name/],
    ['a manifest from a newer schema', (dir) => editManifest(dir, (m) => void (m.schemaVersion = 999)), /newer version/],
    [
      'an operator key in a document',
      (dir) => rewriteLines(dir, 'entities', 'entities.ndjson', (lines) => [lines[0]!.replace(/^\{/, '{"$where":"sleep(1000)",'), ...lines.slice(1)]),
      /entities\.ndjson line 1: .*(\$where|Extended JSON)/,
    ],
    [
      'a __proto__ key in a history row',
      (dir) => rewriteLines(dir, 'history', 'history.ndjson', (lines) => [lines[0]!.replace(/^\{/, '{"__proto__":{"polluted":true},'), ...lines.slice(1)]),
      /history\.ndjson line 1: .*__proto__/,
    ],
    [
      'an object name leaving the export directory',
      (dir) =>
        rewriteLines(dir, 'objects', 'objects.ndjson', (lines) => {
          const entry = JSON.parse(lines[0]!);
          return [JSON.stringify({ ...entry, key: '../../x' }), ...lines.slice(1)];
        }),
      /object name "\.\.\/\.\.\/x" is not allowed/,
    ],
    [
      "an outbox entry that would make the worker delete another database's files",
      (dir) =>
        rewriteLines(dir, 'entities', 'entities.ndjson', (lines) => [
          lines[0]!.replace(/^\{/, '{"__outbox":[{"id":"x","kind":"delete-objects","keys":["victim/65a1b2c3d4e5f60718293a4b/65a1b2c3d4e5f60718293a4c"]}],'),
          ...lines.slice(1),
        ]),
      /entities\.ndjson line 1: .*outside database/,
    ],
    ['a credential of another database', (dir) => rewriteLines(dir, 'credentials', 'credentials.ndjson', (lines) => lines.map((line) => line.replace(/"db":"[^"]+"/, '"db":"other"'))), /another database/],
  ];

  it.each(hostile)('refuses %s before writing anything', async (_what, edit, message) => {
    const dir = await tampered(edit);
    const target = freshName();
    const ran = await adminHere('import', '--from', dir, '--as', target);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
    await expectNothingOf(target);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('undoes an import that fails half-way (two entities with one id): nothing of it is left', async () => {
    // Every line is a valid document and every checksum matches: only the database refuses it,
    // after the history has been written.
    const dir = await tampered((d) => rewriteLines(d, 'entities', 'entities.ndjson', (lines) => [...lines, lines[0]!]));
    const target = freshName();
    const ran = await adminHere('import', '--from', dir, '--as', target);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(new RegExp(`import into "${target}" failed, what was written has been removed`));
    await expectNothingOf(target);
    expect(await pendingOf(target)).toBe(0);
  });

  it('leaves out history rows of a change the exported entity was read before (a write during the export)', async () => {
    // Such a row is dated after the export began and names a version above its entity's.
    let added = '';
    const dir = await tampered((d) =>
      rewriteLines(d, 'history', 'history.ndjson', (lines) => {
        const row = BSON.EJSON.parse(lines.find((line) => line.includes(ids.book!))!, { relaxed: false }) as Record<string, unknown>;
        const later = { ...row, _id: new ObjectId(), v: new Int32(1000), at: new Date() };
        added = later._id.toHexString();
        return [...lines, BSON.EJSON.stringify(later, { relaxed: false })];
      }),
    );
    const target = freshName();
    const ran = await adminHere('import', '--from', dir, '--as', target);
    try {
      expect(ran.code).toBe(0);
      expect(ran.stderr).toMatch(/history: 1 row\(s\) of changes made while the export ran, newer than their entity as exported, left out/);
      const history = api.deps.store.database(target).collection('history');
      expect(await history.countDocuments({ _id: new ObjectId(added) })).toBe(0);
      const manifest = JSON.parse(await readFile(join(exported, 'manifest.json'), 'utf8'));
      expect(await history.countDocuments()).toBe(manifest.files.history.count);
    } finally {
      await deleteDatabase({ store: api.deps.store, objects: api.deps.objects, redis: [api.deps.redis], redisPrefix: api.deps.config.REDIS_PREFIX }, target);
    }
  });

  it('refuses an invalid --as name and a missing --from (usage)', async () => {
    const bad = await adminHere('import', '--from', exported, '--as', '$evil');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/"\$evil" is not a valid database name/);
    const usage = await adminHere('import');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/missing --from/);
    const unknown = await adminHere('export', freshName(), '--out', join(work, 'none'));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/does not exist/);
  });

  it('imports --as a new name beside the original: references, history and objects follow; keys held by the original stay its own', async () => {
    const original = await signIn(api, t.owner.id, t.owner.apiKey);
    const source = await snapshot(t.db, original.auth);
    const copy = freshName();
    const ran = await admin('import', '--from', exported, '--as', copy);
    expect(ran).toMatchObject({ code: 0 });
    expect(ran.stderr).toMatch(/credential\(s\) belong to a person of another database/);
    expect((await objectKeys(copy)).map((key) => key.slice(copy.length))).toEqual((await objectKeys(t.db)).map((key) => key.slice(t.db.length)));

    const reset = await adminHere('reset-key', copy, '--json');
    expect(reset.code).toBe(0);
    const owner = await signIn(api, t.owner.id, JSON.parse(reset.stdout).apiKey as string);
    const shot = await snapshot(copy, owner.auth);
    // The original's entities as exported, under the same ids (a later write to the original aside).
    expect(shot.files).toEqual(before.files);
    expect(shot.history.author).toEqual(before.history.author);
    expect(shot.entities.other).toEqual(before.entities.other);
    expect((shot.entities.book as { entity: { author: { reference: string }[] } }).entity.author[0]!.reference).toBe(ids.author);
    // The original is untouched: its owner signs in with the old key and sees what was there.
    expect(await snapshot(t.db, (await signIn(api, t.owner.id, t.owner.apiKey)).auth)).toEqual(source);
    // The copy's objects are its own: deleting the copy leaves the original's files downloadable.
    expect((await adminHere('delete-database', copy, '--yes')).code).toBe(0);
    expect(await snapshot(t.db, original.auth)).toEqual(source);
  });

  it('an import into a new installation makes it one at this code\'s schema version', async () => {
    const installation = { MONGODB_CONTROL_DB: `${freshName()}_control` };
    const copy = freshName();
    try {
      expect((await adminWith(installation, 'import', '--from', exported, '--as', copy)).code).toBe(0);
      const status = await adminWith(installation, 'migrate', '--status', '--json');
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ fresh: false, stored: SCHEMA_VERSION, needed: SCHEMA_VERSION });
      expect((await adminWith(installation, 'delete-database', copy, '--yes')).code).toBe(0);
    } finally {
      await api.deps.store.client.db(installation.MONGODB_CONTROL_DB).dropDatabase();
    }
  });
});
