import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { trackTempDir } from './cleanup';
import { StackError, errorMessage } from './errors';
import { FERRETDB } from './build';
import { waitForMongoUrl } from './engine-url';
import { startFerretDb } from './ferretdb';
import { seconds, stderrLog, type Log } from './log';
import { startMailpit } from './mailpit';
import { startMinio } from './minio';
import { findMongod, startMongod } from './mongod';
import { startRedis } from './redis';
import type { ManagedServer, StackEnv } from './types';

export interface StackOptions {
  /** Persistent dir; omitted = a fresh temp dir, removed on stop. */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  log?: Log;
  /** Stops waiting for the servers (Ctrl-C while starting): what was started is stopped and startStack rejects. */
  signal?: AbortSignal;
  /** Also an SMTP server (Mailpit) for tests that send e-mail; the test stack's alone. */
  mail?: boolean;
}

export interface Stack {
  env: StackEnv;
  servers: ManagedServer[];
  stop(): Promise<void>;
}

type Part<K extends keyof StackEnv> = { env: Pick<StackEnv, K>; server?: ManagedServer };

function portFrom(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new StackError(`${name}=${raw} is not a TCP port: fix or unset it`);
  return port;
}

async function mongoPart(env: NodeJS.ProcessEnv, root: string, log: Log, signal?: AbortSignal): Promise<Part<'MONGODB_URL'>> {
  if (env.MONGODB_URL) {
    await waitForMongoUrl(env.MONGODB_URL, { log, signal });
    return { env: { MONGODB_URL: env.MONGODB_URL } };
  }
  const engine = env.ENTIA_MONGO_ENGINE;
  if (engine && engine !== 'mongod' && engine !== 'ferretdb') {
    throw new StackError(`ENTIA_MONGO_ENGINE=${engine} is not supported: use "mongod" or "ferretdb", or unset it`);
  }
  const port = portFrom(env, 'ENTIA_STACK_MONGO_PORT');
  const t = Date.now();
  const mongod = engine === 'ferretdb' ? undefined : await findMongod(env, log);
  if (mongod) {
    const s = await startMongod({ port, dir: path.join(root, 'mongod'), binary: mongod, env, log, signal });
    log(`mongodb: mongod (${mongod}) ready at ${s.url} in ${seconds(t)}`);
    return { env: { MONGODB_URL: s.url }, server: s };
  }
  if (engine === 'mongod') {
    throw new StackError(
      'ENTIA_MONGO_ENGINE=mongod but no mongod could be had: put mongod on PATH, set MONGOMS_SYSTEM_BINARY, or let mongodb-memory-server download one (needs its download host; ENTIA_MONGOD_DOWNLOAD not 0)',
    );
  }
  const s = await startFerretDb({ port, dir: path.join(root, 'ferretdb'), env, log, signal });
  log(
    `mongodb: FerretDB ${FERRETDB.version} (${s.handler}) ready at ${s.url} in ${seconds(t)}; it filters and sorts every document ` +
      'in Go (lists slow beyond a few thousand entities) and its updates are not atomic: figures here say more about it than about Entia',
  );
  return { env: { MONGODB_URL: s.url }, server: s };
}

async function redisPart(env: NodeJS.ProcessEnv, root: string, log: Log, signal?: AbortSignal): Promise<Part<'REDIS_URL'>> {
  if (env.REDIS_URL) {
    log('redis: using REDIS_URL from the environment');
    return { env: { REDIS_URL: env.REDIS_URL } };
  }
  const t = Date.now();
  const s = await startRedis({ port: portFrom(env, 'ENTIA_STACK_REDIS_PORT'), dir: path.join(root, 'redis'), env, log, signal });
  log(`redis: ready at ${s.url} in ${seconds(t)}`);
  return { env: { REDIS_URL: s.url }, server: s };
}

type S3Keys = 'S3_ENDPOINT' | 'S3_ACCESS_KEY' | 'S3_SECRET_KEY' | 'S3_BUCKET' | 'S3_REGION';

async function s3Part(env: NodeJS.ProcessEnv, root: string, log: Log, signal?: AbortSignal): Promise<Part<S3Keys>> {
  const bucket = env.S3_BUCKET || 'entia';
  const region = env.S3_REGION || 'us-east-1';
  if (env.S3_ENDPOINT) {
    if (!env.S3_ACCESS_KEY || !env.S3_SECRET_KEY) {
      throw new StackError('S3_ENDPOINT is set but S3_ACCESS_KEY/S3_SECRET_KEY are not: set both, or unset S3_ENDPOINT to start MinIO');
    }
    log('s3: using S3_ENDPOINT from the environment');
    const { S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY } = env;
    return { env: { S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET: bucket, S3_REGION: region } };
  }
  const t = Date.now();
  const s = await startMinio({ port: portFrom(env, 'ENTIA_STACK_MINIO_PORT'), dir: path.join(root, 'minio'), bucket, region, env, log, signal });
  log(`s3: MinIO ready at ${s.endpoint} (bucket "${bucket}") in ${seconds(t)}`);
  return {
    env: { S3_ENDPOINT: s.endpoint, S3_ACCESS_KEY: s.accessKey, S3_SECRET_KEY: s.secretKey, S3_BUCKET: bucket, S3_REGION: region },
    server: s,
  };
}

async function mailPart(env: NodeJS.ProcessEnv, root: string, log: Log, signal?: AbortSignal): Promise<Part<'ENTIA_TEST_SMTP_URL' | 'ENTIA_TEST_MAILPIT_URL'>> {
  const t = Date.now();
  const s = await startMailpit({ port: portFrom(env, 'ENTIA_STACK_SMTP_PORT'), dir: path.join(root, 'mailpit'), env, log, signal });
  log(`smtp: Mailpit ready at ${s.smtpUrl} (messages at ${s.apiUrl}) in ${seconds(t)}`);
  return { env: { ENTIA_TEST_SMTP_URL: s.smtpUrl, ENTIA_TEST_MAILPIT_URL: s.apiUrl }, server: s };
}

/**
 * JWT_SECRET when given; else one kept in the data dir, so tokens survive a restart of a
 * persistent stack (an ephemeral stack's dir, and so its secret, is new each run).
 */
function jwtSecret(env: NodeJS.ProcessEnv, root: string): string {
  if (env.JWT_SECRET) return env.JWT_SECRET;
  const file = path.join(root, 'jwt-secret');
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
}

/** All three start at once; report every distinct problem so one fix-and-retry round suffices. */
function combine(failures: unknown[]): unknown {
  const [first, ...rest] = failures;
  if (!rest.length) return first;
  const seen = new Set([errorMessage(first)]);
  const also = rest.map(errorMessage).filter((m) => !seen.has(m) && seen.add(m));
  if (!also.length) return first;
  const details = first instanceof StackError ? first.details : [];
  return new StackError(errorMessage(first), [...details, ...also.map((m) => `[stack] error: ${m.split('\n')[0]}`)]);
}

async function stopAll(servers: ManagedServer[]): Promise<void> {
  await Promise.allSettled(servers.map((s) => s.stop()));
}

/** MongoDB, Redis and S3 (and, with `mail`, Mailpit): the given URLs where set, otherwise real servers started here. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? stderrLog;
  const started = Date.now();
  const root = opts.dataDir ? path.resolve(opts.dataDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'entia-stack-'));
  fs.mkdirSync(root, { recursive: true });
  const removeRoot = (): void => {
    if (!opts.dataDir) fs.rmSync(root, { recursive: true, force: true });
  };
  const untrackRoot = opts.dataDir ? () => undefined : trackTempDir(root);
  log(`starting (data: ${root}${opts.dataDir ? '' : ', removed on stop'})`);

  const results = await Promise.allSettled([
    mongoPart(env, root, log, opts.signal),
    redisPart(env, root, log, opts.signal),
    s3Part(env, root, log, opts.signal),
    ...(opts.mail ? [mailPart(env, root, log, opts.signal)] : []),
  ]);
  const servers = results.flatMap((r) => (r.status === 'fulfilled' && r.value.server ? [r.value.server] : []));
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  if (failures.length) {
    await stopAll(servers);
    // Keep an ephemeral dir after a failure when the error points at server logs inside it.
    untrackRoot();
    if (!opts.dataDir) {
      if (failures.some((f) => errorMessage(f).includes(root))) log(`kept ${root} for inspection (server logs); remove it when done`);
      else removeRoot();
    }
    throw combine(failures);
  }
  const [mongo, redis, s3, mail] = results.map((r) => (r as PromiseFulfilledResult<Part<keyof StackEnv>>).value);
  const stackEnv = { ...mongo!.env, ...redis!.env, ...s3!.env, ...mail?.env, JWT_SECRET: jwtSecret(env, root) } as StackEnv;
  log(`ready in ${seconds(started)}`);

  let stopping: Promise<void> | undefined;
  return {
    env: stackEnv,
    servers,
    stop() {
      stopping ??= (async () => {
        const t = Date.now();
        await stopAll(servers);
        removeRoot();
        untrackRoot();
        log(`stopped in ${seconds(t)}`);
      })();
      return stopping;
    },
  };
}
