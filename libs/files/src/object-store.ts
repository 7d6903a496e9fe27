import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { create as contentDisposition } from 'content-disposition';

export interface ObjectStoreOptions {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
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

/** The environment settings an object store is made from (a slice of the service configuration). */
export interface S3Settings {
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
}

/** The S3-compatible bucket holding file values; nothing else in Entia talks to S3. */
export class ObjectStore {
  private readonly client: S3Client;

  static fromSettings(settings: S3Settings): ObjectStore {
    return new ObjectStore({
      endpoint: settings.S3_ENDPOINT,
      accessKey: settings.S3_ACCESS_KEY,
      secretKey: settings.S3_SECRET_KEY,
      bucket: settings.S3_BUCKET,
      region: settings.S3_REGION,
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
      requestHandler: { connectionTimeout: 2000, requestTimeout: 10_000 },
    });
  }

  get bucket(): string {
    return this.options.bucket;
  }

  /** Creates the bucket when it is missing; safe to call on every start. */
  async ensureBucket(): Promise<void> {
    if (await this.bucketExists()) return;
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      if (!(error instanceof S3ServiceException && /BucketAlready(OwnedByYou|Exists)/.test(error.name))) throw error;
    }
  }

  /** Reachable, credentials accepted, and the bucket exists. */
  async ping(): Promise<void> {
    if (!(await this.bucketExists())) throw new Error(`bucket ${this.bucket} does not exist`);
  }

  private async bucketExists(): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
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

  /** A GET URL that downloads the object under its original name. */
  presignDownload(key: string, filename: string, expiresIn: number): Promise<string> {
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentDisposition: dispositionOf(filename) });
    return getSignedUrl(this.client, command, { expiresIn });
  }

  /** Whether the object was uploaded. */
  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
      throw error;
    }
  }

  /** Removes an object; removing one that is not there succeeds (S3 semantics), so retries are safe. */
  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
