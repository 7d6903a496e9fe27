import { EntiaClient, EntiaError, UploadError, type UploadTarget, type Value } from '@entia/client';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwt, problem } from './support/peer';

const ENTITY = '65f0a1b2c3d4e5f6a7b8c9d0';
const PERSON = '65f0a1b2c3d4e5f6a7b8c9ff';
const DISPOSITION = `attachment; filename="?un \\"x\\".bin"; filename*=UTF-8''%C3%95un%20%22x%22.bin`;

/** One request as it crossed the socket: raw headers and raw bytes (uploads are binary). */
interface Seen {
  method: string;
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface Reply {
  status: number;
  body?: string;
  type?: string;
}

const expiredXml =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message><Key>k</Key><BucketName>entia</BucketName></Error>';
const signatureXml =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>';

/**
 * A real HTTP server that is both the Entia API (`/api/…`) and the object storage (`/bucket/…`),
 * so the helper's POST, PUT and DELETE all cross a real socket and are seen in order.
 */
class ApiAndStorage {
  seen: Seen[] = [];
  private server: Server | undefined;
  baseUrl = '';
  private values = 0;
  /** Where upload URLs point; a test may aim them at a dead port. */
  storageBase = '';
  /** Answer to the n-th PUT (1-based). */
  storage: (n: number, seen: Seen) => Reply = () => ({ status: 200 });
  /** Answer to a DELETE of a value. */
  deletion: (seen: Seen) => Reply = () => ({ status: 200, body: JSON.stringify({ deleted: true }) });
  /** Answer to the POST of values (default: create them with an upload each). */
  creation: ((seen: Seen) => Reply) | undefined;
  readonly token = jwt({ exp: Math.floor(Date.now() / 1000) + 48 * 3600 });

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url!, 'http://peer');
        const seen: Seen = { method: req.method!, url: req.url!, path: url.pathname, headers: req.headers, body: Buffer.concat(chunks) };
        this.seen.push(seen);
        const reply = this.route(seen);
        res.writeHead(reply.status, { 'Content-Type': reply.type ?? (reply.status < 400 ? 'application/json' : 'application/problem+json') });
        res.end(reply.body ?? '');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.storageBase = this.baseUrl;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }

  reset(): void {
    this.seen = [];
    this.storageBase = this.baseUrl;
    this.storage = () => ({ status: 200 });
    this.deletion = () => ({ status: 200, body: JSON.stringify({ deleted: true }) });
    this.creation = undefined;
  }

  /** The requests after the key exchange, as `METHOD path`. */
  calls(): string[] {
    return this.seen.filter((s) => s.path !== '/api/auth').map((s) => `${s.method} ${s.path}`);
  }

  puts(): Seen[] {
    return this.seen.filter((s) => s.method === 'PUT');
  }

  private route(seen: Seen): Reply {
    if (seen.path === '/api/auth') return { status: 200, body: JSON.stringify({ accounts: [], token: this.token }) };
    if (seen.method === 'POST' && seen.path === `/api/acme/entity/${ENTITY}`) return this.creation?.(seen) ?? this.create(seen);
    if (seen.method === 'PUT' && seen.path.startsWith('/bucket/')) {
      const reply = this.storage(this.puts().length, seen);
      return { ...reply, type: reply.status < 300 ? 'text/plain' : 'application/xml' };
    }
    if (seen.method === 'DELETE' && seen.path.startsWith('/api/acme/property/')) return this.deletion(seen);
    return { status: 404, body: JSON.stringify(problem(404, `no route ${seen.method} ${seen.path}`)) };
  }

  /** Like the API: one value per item, in the order sent, each with its own signed upload. */
  private create(seen: Seen): Reply {
    const items = JSON.parse(seen.body.toString('utf8')) as { type: string; filename: string; filesize: number; filetype: string }[];
    const properties: Value[] = [];
    for (const item of items) {
      const _id = `65f0a1b2c3d4e5f6a7b8${String(++this.values).padStart(4, '0')}`;
      const upload: UploadTarget = {
        url: `${this.storageBase}/bucket/acme/${ENTITY}/${_id}?X-Amz-Expires=900&X-Amz-Signature=${'ab'.repeat(32)}`,
        method: 'PUT',
        headers: { ACL: 'private', 'Content-Disposition': DISPOSITION, 'Content-Length': String(item.filesize), 'Content-Type': item.filetype },
      };
      properties.push({ _id, ...item, created: { at: '2030-01-01T00:00:00.000Z', by: PERSON }, upload });
    }
    return { status: 200, body: JSON.stringify({ _id: ENTITY, properties }) };
  }
}

describe('EntiaDatabase.uploadFile against a real HTTP peer (API + storage)', () => {
  const peer = new ApiAndStorage();
  let client: EntiaClient;

  beforeAll(async () => {
    await peer.start();
    client = new EntiaClient({
      baseUrl: peer.baseUrl,
      apiKey: 'key-key-key-key-key-key',
      db: 'acme',
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => {},
    });
  });
  afterAll(() => peer.stop());
  beforeEach(() => peer.reset());

  const file = (data: Uint8Array) => ({ type: 'photo', filename: 'Õun "x".bin', filetype: 'image/png', data });
  const valueId = (n: number) => `65f0a1b2c3d4e5f6a7b8${String(n).padStart(4, '0')}`;
  const failure = (promise: Promise<unknown>) => promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );

  it('POSTs the metadata with filesize = data length, PUTs exactly the bytes with exactly the returned headers, returns the value', async () => {
    const data = randomBytes(300_000);
    const before = peer.seen.length;
    const value = await client.db().uploadFile(ENTITY, file(data));

    const [post, put] = peer.seen.slice(before).filter((s) => s.path !== '/api/auth');
    expect(post).toMatchObject({ method: 'POST', path: `/api/acme/entity/${ENTITY}` });
    expect(post!.headers.authorization).toBe(`Bearer ${peer.token}`);
    expect(JSON.parse(post!.body.toString('utf8'))).toEqual([{ type: 'photo', filename: 'Õun "x".bin', filesize: 300_000, filetype: 'image/png' }]);

    const first = value._id;
    expect(put).toMatchObject({ method: 'PUT', path: `/bucket/acme/${ENTITY}/${first}` });
    expect(put!.url).toContain('X-Amz-Signature=');
    expect(put!.headers).toMatchObject({
      acl: 'private',
      'content-disposition': DISPOSITION,
      'content-length': '300000',
      'content-type': 'image/png',
    });
    // The API's token must never reach the storage.
    expect(put!.headers.authorization).toBeUndefined();
    expect(put!.body.equals(data)).toBe(true);

    expect(value).toEqual({ _id: first, type: 'photo', filename: 'Õun "x".bin', filesize: 300_000, filetype: 'image/png', created: expect.any(Object) });
    expect(value).not.toHaveProperty('upload');
    expect(peer.calls().filter((c) => c.startsWith('DELETE'))).toEqual([]);
  });

  it('sends only the bytes of a Uint8Array view, and accepts a Buffer', async () => {
    const backing = randomBytes(64);
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 5, 20);
    await client.db().uploadFile(ENTITY, file(view));
    expect(JSON.parse(peer.seen.find((s) => s.method === 'POST')!.body.toString()).at(0).filesize).toBe(20);
    expect(peer.puts()[0]!.body.equals(backing.subarray(5, 25))).toBe(true);

    peer.reset();
    const buffer = Buffer.from('hello, file');
    await client.db().uploadFile(ENTITY, { ...file(buffer), filetype: 'text/plain' });
    expect(peer.puts()[0]!.headers).toMatchObject({ 'content-length': '11', 'content-type': 'text/plain' });
    expect(peer.puts()[0]!.body.toString()).toBe('hello, file');
  });

  it('an expired upload URL (403 "Request has expired"): deletes the value, starts again, returns the new value', async () => {
    peer.storage = (n) => (n === 1 ? { status: 403, body: expiredXml } : { status: 200 });
    const data = randomBytes(1000);
    const value = await client.db().uploadFile(ENTITY, file(data));

    const calls = peer.calls();
    const [firstPost, firstPut, deletion, secondPost, secondPut] = calls;
    expect(calls).toHaveLength(5);
    expect(firstPost).toBe(`POST /api/acme/entity/${ENTITY}`);
    const firstId = firstPut!.split('/').at(-1)!;
    expect(firstPut).toBe(`PUT /bucket/acme/${ENTITY}/${firstId}`);
    expect(deletion).toBe(`DELETE /api/acme/property/${firstId}`);
    expect(secondPost).toBe(`POST /api/acme/entity/${ENTITY}`);
    expect(secondPut).toBe(`PUT /bucket/acme/${ENTITY}/${value._id}`);
    expect(value._id).not.toBe(firstId);
    expect(peer.puts().every((p) => p.body.equals(data))).toBe(true);
  });

  it('restarts a bounded number of times (attempts), then throws an UploadError marked expired', async () => {
    peer.storage = () => ({ status: 403, body: expiredXml });
    const error = await failure(client.db().uploadFile(ENTITY, file(randomBytes(10)), { attempts: 2 }));

    expect(error).toBeInstanceOf(UploadError);
    expect(error).toMatchObject({ status: 403, expired: true, removed: true, body: expect.stringContaining('Request has expired') });
    expect((error as Error).message).toMatch(/expired/);
    const calls = peer.calls();
    expect(calls.filter((c) => c.startsWith('POST'))).toHaveLength(2);
    expect(calls.filter((c) => c.startsWith('PUT'))).toHaveLength(2);
    // Both values created for it are gone again: nothing dangles.
    const created = calls.filter((c) => c.startsWith('PUT')).map((c) => c.split('/').at(-1));
    expect(calls.filter((c) => c.startsWith('DELETE'))).toEqual(created.map((id) => `DELETE /api/acme/property/${id}`));
    expect((error as UploadError).valueId).toBe(created[1]);
  });

  it.each([
    ['403 SignatureDoesNotMatch', { status: 403, body: signatureXml }],
    ['400 Bad Request', { status: 400, body: '<Error><Code>BadDigest</Code></Error>' }],
    ['500 Internal Error', { status: 500, body: '<Error><Code>InternalError</Code></Error>' }],
  ])('any other storage failure (%s): no restart, the value is deleted, an UploadError carries the status', async (_name, reply) => {
    peer.storage = () => reply;
    const error = await failure(client.db().uploadFile(ENTITY, file(randomBytes(10))));

    expect(error).toBeInstanceOf(UploadError);
    expect(error).toMatchObject({ status: reply.status, expired: false, removed: true, body: reply.body });
    expect((error as Error).message).toContain(`refused the PUT with ${reply.status}`);
    const calls = peer.calls();
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['POST', 'PUT', 'DELETE']);
    expect(calls[2]).toBe(`DELETE /api/acme/property/${(error as UploadError).valueId}`);
  });

  it('unreachable storage: UploadError without status, with the network error as cause; the value is deleted', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    peer.storageBase = `http://127.0.0.1:${port}`;

    const error = await failure(client.db().uploadFile(ENTITY, file(randomBytes(10))));
    expect(error).toBeInstanceOf(UploadError);
    expect(error).toMatchObject({ status: undefined, expired: false, removed: true });
    // fetch's own TypeError (another realm than jest's, so compared by shape).
    expect((error as Error).cause).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    expect((error as Error).message).toContain('could not be reached');
    expect(peer.calls().map((c) => c.split(' ')[0])).toEqual(['POST', 'DELETE']);
  });

  it('when deleting the dangling value fails too, the UploadError says so and names the value', async () => {
    peer.storage = () => ({ status: 403, body: expiredXml });
    peer.deletion = () => ({ status: 403, body: JSON.stringify(problem(403, 'no right')) });
    const error = await failure(client.db().uploadFile(ENTITY, file(randomBytes(10))));

    expect(error).toBeInstanceOf(UploadError);
    const upload = error as UploadError;
    // No restart: a new value beside one that could not be deleted would leave two.
    expect(peer.calls().map((c) => c.split(' ')[0])).toEqual(['POST', 'PUT', 'DELETE']);
    expect(upload).toMatchObject({ status: 403, expired: true, removed: false });
    expect(upload.removeError).toBeInstanceOf(EntiaError);
    expect(upload.message).toContain(`value ${upload.valueId} is left without content`);
  });

  it('a value already gone (DELETE 404) counts as deleted', async () => {
    peer.storage = (n) => (n === 1 ? { status: 403, body: expiredXml } : { status: 200 });
    peer.deletion = () => ({ status: 404, body: JSON.stringify(problem(404, 'gone')) });
    await expect(client.db().uploadFile(ENTITY, file(randomBytes(10)))).resolves.toMatchObject({ type: 'photo' });
    expect(peer.calls().map((c) => c.split(' ')[0])).toEqual(['POST', 'PUT', 'DELETE', 'POST', 'PUT']);
  });

  it('an API refusal of the metadata is the EntiaError, and nothing is PUT', async () => {
    peer.creation = () => ({ status: 400, body: JSON.stringify(problem(400, 'filesize too large')) });
    const error = await failure(client.db().uploadFile(ENTITY, file(randomBytes(10))));
    expect(error).toBeInstanceOf(EntiaError);
    expect(error).toMatchObject({ status: 400 });
    expect(peer.puts()).toHaveLength(0);
  });

  it('an API answer without `upload` is an error, not a silent success', async () => {
    peer.creation = () => ({
      status: 200,
      body: JSON.stringify({ _id: ENTITY, properties: [{ _id: valueId(9999), type: 'photo', created: { at: '2030-01-01T00:00:00.000Z', by: PERSON } }] }),
    });
    await expect(client.db().uploadFile(ENTITY, file(randomBytes(10)))).rejects.toThrow(/without an upload/);
    expect(peer.puts()).toHaveLength(0);
  });

  it.each(['constructor', 'toString'])('an answer without the property %s is that error too, not a TypeError from Object.prototype', async (type) => {
    peer.creation = () => ({ status: 200, body: JSON.stringify({ _id: ENTITY, properties: [] }) });
    await expect(client.db().uploadFile(ENTITY, { ...file(randomBytes(10)), type })).rejects.toThrow(/without an upload/);
    expect(peer.puts()).toHaveLength(0);
  });

  it.each([
    ['an upload for another property only', () => [{ _id: valueId(9998), type: 'scan', created: { at: '2030-01-01T00:00:00.000Z', by: PERSON }, upload: { url: `${peer.storageBase}/x`, method: 'PUT', headers: {} } }]],
    // A server from before the answer became an array (SPEC §7a): the bytes would go nowhere the caller meant.
    ['values by property name', () => ({ photo: [{ _id: valueId(9997), type: 'photo', created: { at: '2030-01-01T00:00:00.000Z', by: PERSON }, upload: { url: `${peer.storageBase}/x`, method: 'PUT', headers: {} } }] })],
  ])('an answer with %s is that error too, and nothing is PUT', async (_case, properties) => {
    peer.creation = () => ({ status: 200, body: JSON.stringify({ _id: ENTITY, properties: properties() }) });
    await expect(client.db().uploadFile(ENTITY, file(randomBytes(10)))).rejects.toThrow(/without an upload/);
    expect(peer.puts()).toHaveLength(0);
  });
});
