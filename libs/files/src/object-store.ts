import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { create as contentDisposition } from 'content-disposition';
import { Readable } from 'node:stream';

export interface ObjectStoreOptions {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
  /** How long one call to storage may take, retries included, before storage counts as unreachable. */
  timeoutMs: number;
}

/** Object storage could not be reached, did not answer in time, or answered with a server error. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
}

// Socket-level failures: storage is not there (or the connection to it broke).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether a failed S3 call means storage is away, as opposed to a request it refused (403, 404, …). */
function unreachable(error: unknown): boolean {
  if (error instanceof S3ServiceException) return (error.$metadata.httpStatusCode ?? 0) >= 500;
  // Read by shape, not `instanceof Error`: socket errors are made by Node's core, in another realm than a test's.
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  // TimeoutError: connectionTimeout or requestTimeout (throwOnRequestTimeout); AbortError: the call's own bound.
  if (name === 'TimeoutError' || name === 'AbortError') return true;
  return typeof code === 'string' && NETWORK_CODES.has(code);
}

/** An object as a listing shows it. */
export interface ListedObject {
  key: string;
  size: number;
}

/** What `stat` tells of a stored object. */
export interface ObjectStat {
  size: number;
  etag: string;
  lastModified: Date;
}

/** An object is larger than the caller would read; it was left unread. */
export class ObjectTooLargeError extends Error {
  override readonly name = 'ObjectTooLargeError';

  constructor(readonly size: number, readonly limit: number) {
    super(`object of ${size} bytes exceeds the limit of ${limit}`);
  }
}

export interface FileMeta {
  filename: string;
  filesize: number;
  filetype: string;
}

/** What a client needs to PUT a file (interface §2.2): exactly these headers, exactly this length. */
export interface UploadTarget {
  url: string;
  method: 'PUT';
  headers: { ACL: string; 'Content-Disposition': string; 'Content-Length': string; 'Content-Type': string };
}

// Signed as headers, not hoisted into the query: a PUT with another length, type or name fails.
const SIGNED_HEADERS = new Set(['content-type', 'content-length', 'content-disposition']);

/** RFC 6266 / 5987: quotes, control characters and non-ASCII cannot break the header. */
export function dispositionOf(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  return contentDisposition(filename, { type });
}

/** Origins of the pages that may upload and download with signed URLs: every one, or exactly these. */
export type BrowserOrigins = '*' | readonly string[];

/** What `ensureBucket` did: whether it made the bucket, and what became of its CORS rule. */
export interface BucketSetup {
  created: boolean;
  /** `unsupported`: the store has no per-bucket CORS (MinIO); `none`: no origin to allow. */
  cors: 'set' | 'unsupported' | 'none' | 'untouched';
}

/** The environment settings an object store is made from (a slice of the service configuration). */
export interface S3Settings {
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
  DEPENDENCY_TIMEOUT_MS: number;
}

/** How long the bucket, once seen, is taken to be there before a write with a file value asks again. */
export const BUCKET_RECHECK_MS = 5000;

/** The S3-compatible bucket holding file values; nothing else in Entia talks to S3. */
export class ObjectStore {
  private readonly client: S3Client;
  // What `ensureBucket` was last asked for, so that a bucket made again gets the same CORS rule.
  private browserOrigins: BrowserOrigins = [];
  private bucketSeenAt = Number.NEGATIVE_INFINITY;
  private bucketCheck: Promise<void> | undefined;

  static fromSettings(settings: S3Settings): ObjectStore {
    return new ObjectStore({
      endpoint: settings.S3_ENDPOINT,
      accessKey: settings.S3_ACCESS_KEY,
      secretKey: settings.S3_SECRET_KEY,
      bucket: settings.S3_BUCKET,
      region: settings.S3_REGION,
      timeoutMs: settings.DEPENDENCY_TIMEOUT_MS,
    });
  }

  constructor(private readonly options: ObjectStoreOptions) {
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      credentials: { accessKeyId: options.accessKey, secretAccessKey: options.secretKey },
      forcePathStyle: true,
      maxAttempts: 2,
      // Presigned PUTs carry no body to checksum; the SDK's default would sign a checksum of nothing.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Every attempt is bounded (the handler only warns on requestTimeout unless told to throw),
      // and `guard` bounds a whole call: a dead or hung storage is an error, never a wait.
      requestHandler: { connectionTimeout: options.timeoutMs, requestTimeout: options.timeoutMs, throwOnRequestTimeout: true },
    });
  }

  /**
   * Runs one call to storage within `timeoutMs`, retries included (a quick failure such as a stale
   * keep-alive socket may still be retried once inside it), and turns "storage is away" into
   * `StorageUnavailableError`.
   */
  private async guard<T>(call: (options: { abortSignal: AbortSignal }) => Promise<T>, timeoutMs = this.options.timeoutMs): Promise<T> {
    try {
      return await call({ abortSignal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      if (unreachable(error)) throw new StorageUnavailableError('object storage did not answer', { cause: error });
      throw error;
    }
  }

  get bucket(): string {
    return this.options.bucket;
  }

  /**
   * Creates the bucket when it is missing, with a CORS rule for `browserOrigins` (none: no rule);
   * safe to call on every start. An existing bucket is left as it is: its CORS rules are the
   * operator's (docs/deployment.md). Storage without per-bucket CORS (MinIO answers
   * `PutBucketCors` with NotImplemented; its CORS is server-wide) still gets its bucket.
   */
  async ensureBucket(browserOrigins: BrowserOrigins = this.browserOrigins): Promise<BucketSetup> {
    this.browserOrigins = browserOrigins;
    const setup = await this.makeBucket(browserOrigins);
    this.bucketSeenAt = Date.now();
    return setup;
  }

  /**
   * Resolves when an upload signed now can work: the bucket was seen within `BUCKET_RECHECK_MS`, or
   * is there (made again, as `ensureBucket` makes it, when storage lost it). Throws
   * `StorageUnavailableError` otherwise (answered 503), so that no upload URL is handed out for a
   * bucket that is not there. Concurrent callers share one check.
   */
  async whenWritable(): Promise<void> {
    if (Date.now() - this.bucketSeenAt < BUCKET_RECHECK_MS) return;
    this.bucketCheck ??= this.ensureBucket()
      .then(
        () => undefined,
        (error: unknown) => {
          // Refused credentials or a bucket that cannot be made: no upload can work either.
          if (error instanceof StorageUnavailableError) throw error;
          throw new StorageUnavailableError('object storage cannot take uploads now', { cause: error });
        },
      )
      .finally(() => {
        this.bucketCheck = undefined;
      });
    await this.bucketCheck;
  }

  private async makeBucket(browserOrigins: BrowserOrigins): Promise<BucketSetup> {
    if (await this.bucketExists()) return { created: false, cors: 'untouched' };
    try {
      await this.guard((options) => this.client.send(new CreateBucketCommand({ Bucket: this.bucket }), options));
    } catch (error) {
      if (!(error instanceof S3ServiceException && /BucketAlready(OwnedByYou|Exists)/.test(error.name))) throw error;
      return { created: false, cors: 'untouched' };
    }
    if (browserOrigins !== '*' && browserOrigins.length === 0) return { created: true, cors: 'none' };
    return { created: true, cors: await this.putCorsRule(browserOrigins) };
  }

  /** Lets pages of these origins PUT to upload URLs and GET download URLs with `fetch()`. */
  private async putCorsRule(origins: BrowserOrigins): Promise<'set' | 'unsupported'> {
    const rule = {
      AllowedOrigins: origins === '*' ? ['*'] : [...origins],
      AllowedMethods: ['PUT', 'GET'],
      // The upload headers of UploadTarget (a browser sets Content-Length itself; listing it is harmless).
      AllowedHeaders: ['ACL', 'Content-Disposition', 'Content-Length', 'Content-Type'],
      ExposeHeaders: ['ETag'],
      MaxAgeSeconds: 600,
    };
    try {
      await this.client.send(new PutBucketCorsCommand({ Bucket: this.bucket, CORSConfiguration: { CORSRules: [rule] } }), {
        abortSignal: AbortSignal.timeout(this.options.timeoutMs),
      });
      return 'set';
    } catch (error) {
      // 501 from MinIO, read before `guard` would take any 5xx for an outage.
      if (error instanceof S3ServiceException && error.name === 'NotImplemented') return 'unsupported';
      throw new Error(`bucket ${this.bucket} was created, but its CORS rule could not be set: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Reachable, credentials accepted, and the bucket exists. */
  async ping(): Promise<void> {
    if (!(await this.bucketExists())) throw new Error(`bucket ${this.bucket} does not exist`);
  }

  private async bucketExists(): Promise<boolean> {
    try {
      await this.guard((options) => this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), options));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
      throw error;
    }
  }

  async presignUpload(key: string, file: FileMeta, expiresIn: number): Promise<UploadTarget> {
    const disposition = dispositionOf(file.filename);
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ACL: 'private',
      ContentType: file.filetype,
      ContentLength: file.filesize,
      ContentDisposition: disposition,
    });
    const url = await getSignedUrl(this.client, command, { expiresIn, signableHeaders: SIGNED_HEADERS, unhoistableHeaders: SIGNED_HEADERS });
    return {
      url,
      method: 'PUT',
      headers: { ACL: 'private', 'Content-Disposition': disposition, 'Content-Length': String(file.filesize), 'Content-Type': file.filetype },
    };
  }

  /**
   * A GET URL that downloads the object under its original name; with `inlineAs`, one a browser
   * shows in place, served as that content type (the caller decides which types are safe to show:
   * libs/domain `displayOf`). Both answers are asked of storage in the signed query
   * (`response-content-disposition`, `response-content-type`), so nobody can change them.
   */
  presignDownload(key: string, filename: string, expiresIn: number, inlineAs?: string): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: dispositionOf(filename, inlineAs === undefined ? 'attachment' : 'inline'),
      ...(inlineAs === undefined ? {} : { ResponseContentType: inlineAs }),
    });
    return getSignedUrl(this.client, command, { expiresIn });
  }

  /** Whether the object was uploaded. */
  async exists(key: string): Promise<boolean> {
    try {
      await this.guard((options) => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), options));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
      throw error;
    }
  }

  /**
   * Copies an object within the bucket, server-side (S3 CopyObject: the bytes never pass through
   * this process), with its content type and disposition. Resolves false when `from` does not
   * exist (a file value that was never uploaded): nothing is copied then. Copying again over the
   * same `to` writes the same bytes, so retries are safe.
   */
  async copy(from: string, to: string): Promise<boolean> {
    try {
      // The source key is a path `<bucket>/<key>`; our keys are `<db>/<id>/<id>` (safe characters), encoded anyway.
      const source = `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
      await this.guard((options) => this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: source, MetadataDirective: 'COPY' }), options));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return false;
      throw error;
    }
  }

  /** The object's size, ETag and time of writing; undefined when there is none. */
  async stat(key: string): Promise<ObjectStat | undefined> {
    try {
      const head = await this.guard((options) => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), options));
      return { size: head.ContentLength ?? 0, etag: head.ETag ?? '', lastModified: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return undefined;
      throw error;
    }
  }

  /**
   * An object's bytes, or undefined when there is none. Never holds more than `maxBytes` in
   * memory: a larger object is `ObjectTooLargeError`, left unread (its declared length decides, and
   * the count of what arrives, should the length lie). The whole transfer is bounded by `timeoutMs`.
   */
  async read(key: string, maxBytes: number, timeoutMs = this.options.timeoutMs): Promise<Buffer | undefined> {
    try {
      return await this.guard(async (options) => {
        const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), options);
        const body = answer.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
        if (body === undefined) return Buffer.alloc(0);
        if ((answer.ContentLength ?? 0) > maxBytes) {
          body.destroy?.();
          throw new ObjectTooLargeError(answer.ContentLength!, maxBytes);
        }
        const chunks: Uint8Array[] = [];
        let length = 0;
        for await (const chunk of body) {
          length += chunk.length;
          if (length > maxBytes) {
            body.destroy?.();
            throw new ObjectTooLargeError(length, maxBytes);
          }
          chunks.push(chunk);
        }
        return Buffer.concat(chunks, length);
      }, timeoutMs);
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return undefined;
      throw error;
    }
  }

  /** Stores `bytes` under `key` (replacing what was there), private, of type `contentType`. */
  async write(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.guard((options) =>
      this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.length, ACL: 'private' }), options),
    );
  }

  /** Removes an object; removing one that is not there succeeds (S3 semantics), so retries are safe. */
  async remove(key: string): Promise<void> {
    await this.guard((options) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), options));
  }

  /**
   * Every object whose key starts with `prefix`, a page (up to 1000, S3's page size) at a time, in
   * key order. Each page is one bounded call, so a large prefix is listed without holding it all.
   */
  async *list(prefix: string): AsyncGenerator<ListedObject[]> {
    let token: string | undefined;
    do {
      const page = await this.guard((options) =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }), options),
      );
      const objects = (page.Contents ?? []).filter((object) => object.Key !== undefined);
      if (objects.length > 0) yield objects.map((object) => ({ key: object.Key!, size: object.Size ?? 0 }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Removes every object under `prefix`, a listed page per delete call; resolves with how many were
   * removed. Safe to run again after a failure: what is gone is no longer listed.
   */
  async removePrefix(prefix: string): Promise<number> {
    let removed = 0;
    for await (const page of this.list(prefix)) {
      const done = await this.guard((options) =>
        this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: page.map(({ key }) => ({ Key: key })), Quiet: true } }), options),
      );
      const failed = done.Errors ?? [];
      if (failed.length > 0) throw new Error(`object storage refused to delete ${failed.length} object(s) under ${prefix}: ${failed[0]?.Code ?? 'unknown error'}`);
      removed += page.length;
    }
    return removed;
  }

  /**
   * An object's bytes as a stream, with what it was stored with; undefined when there is none.
   * For copying objects of any size (export, import): nothing is held in memory. `timeoutMs`
   * bounds the whole transfer (the body is aborted when it runs out), so pass one that fits the
   * object, not the per-call default.
   */
  async readStream(key: string, timeoutMs: number): Promise<StoredObjectStream | undefined> {
    try {
      return await this.guard(async (options) => {
        const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), options);
        const body = (answer.Body as Readable | undefined) ?? Readable.from([]);
        return {
          body,
          size: answer.ContentLength ?? 0,
          contentType: answer.ContentType ?? 'application/octet-stream',
          ...(answer.ContentDisposition ? { contentDisposition: answer.ContentDisposition } : {}),
        };
      }, timeoutMs);
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return undefined;
      throw error;
    }
  }

  /**
   * Stores a stream of exactly `size` bytes under `key` (replacing what was there), private, with
   * its content type and disposition. One PUT (S3 takes up to 5 GB so), bounded by `timeoutMs`.
   */
  async writeStream(key: string, body: Readable, meta: { size: number; contentType: string; contentDisposition?: string }, timeoutMs: number): Promise<void> {
    await this.guard(
      (options) =>
        this.client.send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: body,
            ContentType: meta.contentType,
            ContentLength: meta.size,
            ...(meta.contentDisposition ? { ContentDisposition: meta.contentDisposition } : {}),
            ACL: 'private',
          }),
          options,
        ),
      timeoutMs,
    );
  }
}

/** An object being read as a stream (`readStream`). */
export interface StoredObjectStream {
  body: Readable;
  size: number;
  contentType: string;
  contentDisposition?: string;
}
