import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBinary, MINIO } from './build';
import { StackError } from './errors';
import { httpStatus } from './http';
import { stderrLog } from './log';
import { managed } from './managed';
import { assertPortFree, freePort, withPortRetry } from './ports';
import { ServerProcess, sleep } from './process';
import type { ManagedServer, StartCommon } from './types';

interface Credentials {
  accessKey: string;
  secretKey: string;
}

/**
 * Random per data dir, and kept with it: MinIO encrypts its IAM/config data with the root
 * credentials, so a persistent dir must come back with the ones it was created with.
 */
function credentialsFor(dir: string): Credentials {
  const file = path.join(dir, 'credentials.json');
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Credentials;
  } catch {
    const creds = { accessKey: `entia${randomBytes(6).toString('hex')}`, secretKey: randomBytes(24).toString('base64url') };
    fs.writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
    return creds;
  }
}

/** The root credentials and the region a bucket is made with. */
export interface S3Credentials {
  accessKey: string;
  secretKey: string;
  region: string;
}

/** How long one request may take (the S3 client's own default is to wait forever). */
const REQUEST_MS = 3000;

/**
 * Creates the bucket with the S3 client libs/files uses, treating "already yours" as success;
 * retried while MinIO finishes booting. The client is loaded only here, not when the CLI starts.
 */
export async function ensureBucket(endpoint: string, creds: S3Credentials, bucket: string, timeoutMs = 30_000): Promise<void> {
  const { CreateBucketCommand, S3Client, S3ServiceException } = await import('@aws-sdk/client-s3');
  const client = new S3Client({
    endpoint,
    region: creds.region,
    credentials: { accessKeyId: creds.accessKey, secretAccessKey: creds.secretKey },
    forcePathStyle: true,
    // This loop is the retry: one attempt per round, each bounded.
    maxAttempts: 1,
    requestHandler: { connectionTimeout: REQUEST_MS, requestTimeout: REQUEST_MS, throwOnRequestTimeout: true },
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const failure = await client.send(new CreateBucketCommand({ Bucket: bucket })).then(
        () => undefined,
        (err: Error) => err,
      );
      if (failure === undefined) return;
      // An S3 error reply has a code (its name) and a status; anything else never reached S3.
      const status = failure instanceof S3ServiceException ? failure.$metadata.httpStatusCode : undefined;
      if (status !== undefined && failure.name === 'BucketAlreadyOwnedByYou') return;
      // 503 = XMinioServerNotInitialized right after the health check turns green.
      const transient = status === undefined || status >= 500;
      if (!transient || Date.now() > deadline) {
        throw new StackError(`creating bucket "${bucket}" at ${endpoint} failed: ${status === undefined ? failure.message : failure.name}`);
      }
      await sleep(200);
    }
  } finally {
    client.destroy();
  }
}

export async function startMinio(
  opts: StartCommon & { bucket: string; region?: string },
): Promise<ManagedServer & { endpoint: string; accessKey: string; secretKey: string }> {
  const env = opts.env ?? process.env;
  const { path: bin } = await ensureBinary(MINIO, env, opts.log ?? stderrLog);
  const dataDir = path.join(opts.dir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  const creds = credentialsFor(opts.dir);
  const region = opts.region ?? 'us-east-1';
  return withPortRetry(opts.port, async (port) => {
    const consolePort = await freePort();
    await assertPortFree(port, 'MinIO');
    const endpoint = `http://127.0.0.1:${port}`;
    const proc = new ServerProcess({
      label: `MinIO ${MINIO.version}`,
      command: bin,
      args: ['server', dataDir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`],
      env: {
        ...env,
        MINIO_ROOT_USER: creds.accessKey,
        MINIO_ROOT_PASSWORD: creds.secretKey,
        // Browsers upload to signed URLs from the page's origin. MinIO has no per-bucket CORS
        // (PutBucketCors is NotImplemented), only this server-wide list: any origin here, since the
        // signature is the access control and the API's CORS_ORIGINS decides which pages get URLs.
        MINIO_API_CORS_ALLOW_ORIGIN: env.MINIO_API_CORS_ALLOW_ORIGIN || '*',
        ...(region === 'us-east-1' ? {} : { MINIO_SITE_REGION: region }),
      },
      dir: opts.dir,
      logName: 'minio.log',
      port,
      ready: async (timeoutMs) => (await httpStatus(`${endpoint}/minio/health/live`, timeoutMs)) === 200,
      log: opts.log ?? stderrLog,
      signal: opts.signal,
    });
    const bucket = (): Promise<void> => ensureBucket(endpoint, { ...creds, region }, opts.bucket);
    await proc.start();
    try {
      await bucket();
    } catch (err) {
      await proc.stop();
      throw err;
    }
    // Object.assign, not spread: spreading would freeze the live `pid` getter into a value.
    return Object.assign(managed('minio', port, proc, { ports: [port, consolePort], afterStart: bucket }), {
      endpoint,
      accessKey: creds.accessKey,
      secretKey: creds.secretKey,
    });
  });
}
