import { ObjectStore } from '@entia/files';
import { RedisBreaker, createRedis } from '@entia/jobs';
import { startRedis, type ManagedServer } from '@entia/stack';
import { Queue } from 'bullmq';
import express, { type ErrorRequestHandler } from 'express';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { get, type Server } from 'node:http';
import { createServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createHttpServer } from '../src/http/server';
import { OUTAGES, unavailableDependency, type Dependency } from '../src/http/unavailable';
import { freePort } from './processes';
import { exchange, hangUp } from './raw-http';

/**
 * Which dependency an error says is away (issue 31): real errors of each library, made by really
 * failing — nothing listening, a paused server, a refusal, a client hanging up — and at most one
 * outage classifier, that of the error's own client, claiming each. The client's own events and
 * Node's socket errors are no dependency's: an ECONNABORTED of a client hanging up mid-body was
 * once taken for Redis.
 */
describe('the source of an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-error-sources-'));
  // A Redis of this test's own: one row pauses it.
  let ownRedis: ManagedServer & { url: string };
  // Where nothing listens: a port just freed.
  let closed: string;

  beforeAll(async () => {
    ownRedis = await startRedis({ dir });
    closed = `127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    await ownRedis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What `attempt` rejects with; a test failure if it succeeds. */
  async function failure(attempt: Promise<unknown>): Promise<unknown> {
    return attempt.then(
      (value) => {
        throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
      },
      (error: unknown) => error,
    );
  }

  /** Runs `use` with a client of the `command` role (the API's), then disconnects it. */
  async function withRedis<T>(url: string, use: (redis: Redis) => Promise<T>, role: 'command' | 'worker' = 'command', timeoutMs = 300): Promise<T> {
    const redis = createRedis(url, role, () => undefined, timeoutMs);
    try {
      return await use(redis);
    } finally {
      redis.disconnect();
    }
  }

  /** Runs `use` with the port of `server`, listening on 127.0.0.1; then closes it, and its connections. */
  async function serving<T>(server: NetServer, use: (port: number) => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await use((server.address() as AddressInfo).port);
    } finally {
      (server as Partial<Server>).closeAllConnections?.();
      server.close();
    }
  }

  /** The error express's body parser passes on when `send` mistreats a POST to a server of ours. */
  async function bodyParserError(send: (server: Server, port: number) => Promise<unknown>, requestTimeoutMs = 60_000): Promise<unknown> {
    let caught!: (error: unknown) => void;
    const error = new Promise<unknown>((resolve) => (caught = resolve));
    const handler: ErrorRequestHandler = (err, _req, res, _next) => {
      caught(err);
      res.end();
    };
    const app = express().post('/', express.json(), (_req, res) => void res.end()).use(handler);
    const server = createHttpServer(app, { requestTimeoutMs, logger: pino({ level: 'silent' }) });
    return serving(server, async (port) => {
      await send(server, port);
      return error;
    });
  }
  const partialPost = 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"q": "';

  /** What Node's HTTP client fails with on a GET of `address`. */
  const httpGet = (address: string) => failure(new Promise((resolve, reject) => get(`http://${address}/`, resolve).on('error', reject)));

  const s3 = (endpoint: string, secretKey = process.env.S3_SECRET_KEY!) =>
    new ObjectStore({ endpoint, accessKey: process.env.S3_ACCESS_KEY!, secretKey, bucket: process.env.S3_BUCKET ?? 'entia', region: 'us-east-1', timeoutMs: 500 });

  it.each<[string, () => Promise<unknown>, RegExp, Dependency | undefined]>([
    // Redis, as ioredis, BullMQ and our breaker fail its calls.
    // Two refused connects 200 ms apart end it: a commandTimeout of 300 ms would race them on a busy machine.
    [
      'ioredis: a command while nothing listens (maxRetriesPerRequest)',
      () => withRedis(`redis://${closed}`, (redis) => failure(redis.get('k')), 'command', 10_000),
      /^MaxRetriesPerRequestError/,
      'redis',
    ],
    [
      'ioredis: a command to a paused Redis (commandTimeout)',
      () =>
        withRedis(ownRedis.url, async (redis) => {
          await redis.ping();
          ownRedis.pause();
          try {
            return await failure(redis.get('k'));
          } finally {
            ownRedis.resume();
          }
        }),
      /^Error Command timed out$/,
      'redis',
    ],
    [
      "ioredis: a blocking read on a worker's connection, closed under it",
      () =>
        withRedis(
          ownRedis.url,
          async (redis) => {
            await redis.ping();
            const read = failure(redis.blpop('nothing', 5));
            redis.disconnect();
            return read;
          },
          'worker',
        ),
      /^Error Connection is closed\.$/,
      'redis',
    ],
    [
      'ioredis without an offline queue, nothing listening',
      async () => {
        const redis = new Redis(`redis://${closed}`, { enableOfflineQueue: false, retryStrategy: () => null }).on('error', () => undefined);
        return failure(redis.get('k')).finally(() => redis.disconnect());
      },
      /^Error Stream isn't writeable/,
      'redis',
    ],
    [
      'BullMQ: enqueueing over a connection that was closed',
      () =>
        withRedis(ownRedis.url, async (redis) => {
          const queue = new Queue('sources', { connection: redis }).on('error', () => undefined);
          redis.disconnect();
          return failure(queue.add('job', {}));
        }),
      /Connection is closed\.$/,
      'redis',
    ],
    ['the breaker: a Redis call that found Redis away', () => withRedis(`redis://${closed}`, (redis) => failure(new RedisBreaker(redis).run((r) => r.get('k')))), /^RedisUnavailableError/, 'redis'],
    [
      'Redis refusing a command (WRONGTYPE), through the breaker',
      () =>
        withRedis(ownRedis.url, async (redis) => {
          await redis.set('sources:string', 'x');
          return failure(new RedisBreaker(redis).run((r) => r.lpush('sources:string', 'y')));
        }),
      /^ReplyError WRONGTYPE/,
      undefined,
    ],
    // MongoDB, as its driver fails.
    [
      'the MongoDB driver: nothing listening (serverSelectionTimeoutMS)',
      async () => {
        const client = new MongoClient(`mongodb://${closed}/`, { serverSelectionTimeoutMS: 300 });
        return failure(client.db('sources').command({ ping: 1 })).finally(() => client.close());
      },
      /^MongoServerSelectionError/,
      'mongodb',
    ],
    [
      'MongoDB refusing a command',
      async () => {
        const client = new MongoClient(process.env.MONGODB_URL!, { serverSelectionTimeoutMS: 5000 });
        return failure(client.db('sources').command({ noSuchCommand: 1 })).finally(() => client.close());
      },
      /^MongoServerError/,
      undefined,
    ],
    // Object storage: the object store wraps what says storage is away. Not a closed port here: under
    // jest, Node's socket errors come from another realm than the SDK's, whose retry layer then
    // rewraps them without their code (outside jest it is StorageUnavailableError, and a killed
    // MinIO is answered 503 naming storage: storage-outage.test.ts).
    [
      'the object store: storage not answering',
      // Connections accepted, nothing answered: a hung server.
      () => serving(createServer(), (port) => failure(s3(`http://127.0.0.1:${port}`).write('sources/k', Buffer.from('x'), 'text/plain'))),
      /^StorageUnavailableError/,
      'storage',
    ],
    ['the object store: credentials refused (403)', () => failure(s3(process.env.S3_ENDPOINT!, 'not-the-secret').write('sources/k', Buffer.from('x'), 'text/plain')), /^(InvalidAccessKeyId|SignatureDoesNotMatch)/, undefined],
    // The client's events, and Node's socket errors: no dependency's.
    ['body-parser: the client hung up mid-body', () => bodyParserError((server, port) => hangUp(server, port, partialPost)), /^BadRequestError ECONNABORTED request aborted$/, undefined],
    ['body-parser: the body cut off at REQUEST_TIMEOUT_MS', () => bodyParserError((_server, port) => exchange(port, [partialPost]), 500), /^BadRequestError ECONNABORTED request aborted$/, undefined],
    ["Node's HTTP client: the connection reset by the peer", () => serving(createServer((socket) => socket.resetAndDestroy()), (port) => httpGet(`127.0.0.1:${port}`)), /^Error ECONNRESET/, undefined],
    ["Node's HTTP client: nothing listening", () => httpGet(closed), /^Error ECONNREFUSED/, undefined],
  ])('%s', async (_source, produce, what, dependency) => {
    const error = await produce();
    const { name, code, message } = error as { name?: string; code?: string; message?: string };
    expect([name, code, message].filter(Boolean).join(' ')).toMatch(what);
    const matched = (Object.keys(OUTAGES) as Dependency[]).filter((candidate) => OUTAGES[candidate](error));
    expect(matched).toEqual(dependency ? [dependency] : []);
    expect(unavailableDependency(error)).toBe(dependency);
  });
});
