import { Double, Int32, Long, ObjectId, type Document } from 'mongodb';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BackupError, DATA_FILES, isSafeObjectName, parseManifest, type BackupManifest, type DataFile } from '../src/backup/format';
import { parseLine, readNdjson, toLine } from '../src/backup/ndjson';
import { SHAPES } from '../src/backup/shapes';
import { objectPath } from '../src/backup/verify';

// The pure rules of the export format (issue 22): what an import accepts, line by line, before
// it writes anything. The round trip over the real stack is services/api/test/backup.test.ts.

const CONTROL = 'entia_control';
const SUMMARY = { count: 1, bytes: 10, sha256: 'a'.repeat(64) };
const files = Object.fromEntries(Object.keys(DATA_FILES).map((name) => [name, SUMMARY])) as Record<DataFile, typeof SUMMARY>;
const good = { format: 'entia-export', formatVersion: 1, db: 'books', schemaVersion: 2, startedAt: '2026-01-01T00:00:00.000Z', exportedAt: '2026-01-01T00:00:01.000Z', files };
const manifest = good as BackupManifest;

const refusal = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(BackupError);
    return (error as Error).message;
  }
  return 'accepted';
};

describe('isSafeObjectName', () => {
  it.each([
    ['65a1b2c3d4e5f60718293a4b/65a1b2c3d4e5f60718293a4c', true],
    ['65a1b2c3d4e5f60718293a4b/65a1b2c3d4e5f60718293a4c.thumbnail-200.webp', true],
    ['', false],
    ['../x', false],
    ['a/../../x', false],
    ['a/./b', false],
    ['/etc/passwd', false],
    ['a//b', false],
    ['a\\b', false],
    ['a/b c', false],
    ['a/ü', false],
    ['x'.repeat(201), false],
    [`${'a/'.repeat(300)}a`, false],
  ])('%j → %s', (name, safe) => expect(isSafeObjectName(name)).toBe(safe));
});

describe('objectPath', () => {
  it('keeps a safe name inside objects/', () => expect(objectPath('/backup', 'a/b.c')).toBe('/backup/objects/a/b.c'));
  it.each(['../x', 'a/../../x', '..', '/abs'])('refuses %j', (name) => expect(refusal(() => objectPath('/backup', name))).toMatch(/leaves the export directory/));
});

describe('parseManifest', () => {
  const parse = (change: (m: Record<string, unknown>) => void, schema = 2) => {
    const copy = JSON.parse(JSON.stringify(good)) as Record<string, unknown>;
    change(copy);
    return refusal(() => parseManifest(JSON.stringify(copy), CONTROL, schema));
  };
  it.each<[string, (m: Record<string, unknown>) => void, RegExp]>([
    ['as written', () => undefined, /^accepted$/],
    ['an older schema', (m) => void (m.schemaVersion = 1), /^accepted$/],
    ['another format', (m) => void (m.format = 'tarball'), /not an Entia export/],
    ['another format version', (m) => void (m.formatVersion = 2), /format version 2 is not supported/],
    ['a newer schema', (m) => void (m.schemaVersion = 3), /newer version \(schema 3; this version knows 2\)/],
    ['a negative schema', (m) => void (m.schemaVersion = -1), /no valid schemaVersion/],
    ['a name with a path', (m) => void (m.db = '../etc'), /not a valid database name/],
    ['a name with an operator', (m) => void (m.db = { $ne: 1 }), /not a valid database name/],
    ['the control database', (m) => void (m.db = CONTROL), /not a valid database name/],
    ['a reserved name', (m) => void (m.db = 'admin'), /not a valid database name/],
    ['no start time', (m) => void delete m.startedAt, /no valid startedAt/],
    ['a bad end time', (m) => void (m.exportedAt = 'yesterday'), /no valid exportedAt/],
    ['no files', (m) => void delete m.files, /lists no files/],
    ['an unknown file', (m) => void ((m.files as Record<string, unknown>)['../../etc/passwd'] = SUMMARY), /unknown file/],
    ['a file left out', (m) => void delete (m.files as Record<string, unknown>).history, /no valid entry for history\.ndjson/],
    ['a bad checksum', (m) => void ((m.files as Record<string, unknown>).objects = { ...SUMMARY, sha256: 'xyz' }), /no valid entry for objects\.ndjson/],
    ['a fractional count', (m) => void ((m.files as Record<string, unknown>).entities = { ...SUMMARY, count: 1.5 }), /no valid entry for entities\.ndjson/],
  ])('%s', (_what, change, expected) => expect(parse(change)).toMatch(expected));

  it.each([['not json', /not JSON/], ['[1]', /not an object/], ['null', /not an object/]])('refuses %j', (text, expected) =>
    expect(refusal(() => parseManifest(text, CONTROL, 2))).toMatch(expected),
  );
});

describe('parseLine', () => {
  const id = new ObjectId();
  it('reads back what toLine wrote, every BSON type kept (numbers as the export reads them: promoteValues off)', () => {
    const document = {
      _id: id,
      at: new Date('2026-01-02T03:04:05.006Z'),
      n: new Int32(1),
      whole: new Double(12),
      big: Long.fromNumber(2 ** 40),
      s: 'Märkmed',
      list: [{ reference: id.toHexString(), number: new Double(1.5) }],
    };
    const read = parseLine(toLine(document), 'x');
    expect(read).toEqual(document);
    expect(read._id).toBeInstanceOf(ObjectId);
    expect(read.at).toBeInstanceOf(Date);
    expect(read.whole).toBeInstanceOf(Double);
    expect(read.big).toBeInstanceOf(Long);
  });

  it.each<[string, RegExp]>([
    ['{"$where":"sleep(1000)"}', /key "\$where" is not allowed/],
    ['{"a":{"b":[{"$set":{"x":1}}]}}', /key "\$set" is not allowed/],
    ['{"__proto__":{"polluted":true}}', /"__proto__" is not allowed/],
    ['{"a":[{"__proto__":{}}]}', /"__proto__" is not allowed/],
    ['{"constructor":{"prototype":{}}}', /key "constructor" is not allowed/],
    ['{"a\\u0000b":1}', /not valid Extended JSON .*null bytes/],
    ['{"_id":{"$oid":"not hex"}}', /not valid Extended JSON/],
    ['{"a":1', /not a JSON document/],
    ['[1,2]', /not a JSON object/],
    ['"text"', /not a JSON object/],
    ['{"x":{"$date":{"$numberLong":"1"}}}', /^accepted$/],
  ])('%s', (line, expected) => {
    expect(refusal(() => parseLine(line, 'entities.ndjson line 1'))).toMatch(expected);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('SHAPES', () => {
  const id = new ObjectId();
  const hex = id.toHexString();
  const check = (file: DataFile, document: Document) => SHAPES[file](document, manifest) ?? 'ok';
  it.each<[DataFile, Document, RegExp]>([
    ['database', { _id: 'books', databaseEntity: hex, meta: {}, createdAt: new Date() }, /^ok$/],
    ['database', { _id: 'other', databaseEntity: hex, meta: {}, createdAt: new Date() }, /not the manifest database's/],
    ['database', { _id: 'books', databaseEntity: 'x', meta: {}, createdAt: new Date() }, /no database entity/],
    ['database', { _id: 'books', databaseEntity: hex, meta: {} }, /no creation date/],
    ['credentials', { _id: 'h', db: 'books', person: hex, value: hex }, /^ok$/],
    ['credentials', { _id: 'h', db: 'other', person: hex, value: hex }, /another database/],
    ['credentials', { _id: 'h', db: 'books', person: 'nobody', value: hex }, /without id, person or value/],
    ['entities', { _id: id }, /^ok$/],
    ['entities', { _id: hex }, /without an ObjectId _id/],
    ['entities', { _id: id, __outbox: [{ kind: 'delete-objects', keys: [`books/${hex}/${hex}`] }, { kind: 'changed' }] }, /^ok$/],
    ['entities', { _id: id, __outbox: [{ kind: 'delete-objects', keys: [`victim/${hex}/${hex}`] }] }, /outside database "books"/],
    ['entities', { _id: id, __outbox: [{ kind: 'delete-objects', keys: ['books/../victim/x'] }] }, /outside database "books"/],
    ['entities', { _id: id, __outbox: [{ kind: 'delete-objects', keys: ['books/'] }] }, /outside database "books"/],
    ['entities', { _id: id, __outbox: { kind: 'delete-objects' } }, /outbox is not a list/],
    ['history', { _id: id, entity: id }, /^ok$/],
    ['history', { _id: id, entity: hex }, /without an ObjectId _id and entity/],
    ['pending', { db: 'books', entity: hex }, /^ok$/],
    ['pending', { db: 'other', entity: hex }, /another database/],
    ['objects', { key: `${hex}/${hex}`, size: 3, contentType: 'image/png', sha256: 'b'.repeat(64) }, /^ok$/],
    ['objects', { key: '../../x', size: 3, contentType: 'image/png', sha256: 'b'.repeat(64) }, /object name "\.\.\/\.\.\/x" is not allowed/],
    ['objects', { key: 'a', size: new Int32(3), contentType: 'image/png', sha256: 'b'.repeat(64) }, /^ok$/],
    ['objects', { key: 'a', size: -1, contentType: 'image/png', sha256: 'b'.repeat(64) }, /valid size/],
    ['objects', { key: 'a', size: 3, contentType: 'text/plain\r\nX-Evil: 1', sha256: 'b'.repeat(64) }, /invalid content type/],
    ['objects', { key: 'a', size: 3, contentType: 'image/png', sha256: 'B'.repeat(64) }, /valid sha256/],
  ])('%s %j', (file, document, expected) => expect(check(file, document)).toMatch(expected));
});

describe('readNdjson', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'entia-ndjson-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const summary = (body: string) => ({ count: body.split('\n').length - 1, bytes: Buffer.byteLength(body), sha256: createHash('sha256').update(body).digest('hex') });
  async function read(body: string, expected = summary(body)): Promise<string> {
    const path = join(dir, `f-${Math.random().toString(36).slice(2)}.ndjson`);
    await writeFile(path, body);
    try {
      let count = 0;
      for await (const _document of readNdjson(path, 'entities.ndjson', expected)) count += 1;
      return `read ${count}`;
    } catch (error) {
      expect(error).toBeInstanceOf(BackupError);
      return (error as Error).message;
    }
  }

  const body = '{"a":1}\n{"b":"ü"}\n';
  it.each<[string, () => Promise<string>, RegExp]>([
    ['as written', () => read(body), /^read 2$/],
    ['empty', () => read(''), /^read 0$/],
    ['one byte changed', () => read(body.replace('1', '2'), summary(body)), /does not match its checksum/],
    ['a line more than counted', () => read(`${body}{"c":3}\n`, summary(body)), /more lines than its manifest entry says/],
    ['cut short', () => read(body.slice(0, -3), summary(body)), /does not end with a line break/],
    ['not there', () => missing(), /is missing from the export/],
  ])('%s', async (_what, run, expected) => expect(await run()).toMatch(expected));

  async function missing(): Promise<string> {
    try {
      for await (const _document of readNdjson(join(dir, 'none.ndjson'), 'entities.ndjson', summary(''))) return 'read';
      return 'read';
    } catch (error) {
      return (error as Error).message;
    }
  }
});
