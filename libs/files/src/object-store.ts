import { Client } from 'minio';

export interface ObjectStoreOptions {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

/** The S3-compatible bucket holding file values; nothing else in Entia talks to S3. */
export class ObjectStore {
  private readonly client: Client;

  constructor(private readonly options: ObjectStoreOptions) {
    const url = new URL(options.endpoint);
    const useSSL = url.protocol === 'https:';
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region,
      pathStyle: true,
    });
  }

  get bucket(): string {
    return this.options.bucket;
  }

  /** Creates the bucket when it is missing; safe to call on every start. */
  async ensureBucket(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) {
      await this.client.makeBucket(this.bucket, this.options.region);
    }
  }

  /** Reachable, credentials accepted, and the bucket exists. */
  async ping(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) throw new Error(`bucket ${this.bucket} does not exist`);
  }

  presignPut(key: string, expirySeconds: number): Promise<string> {
    return this.client.presignedPutObject(this.bucket, key, expirySeconds);
  }

  presignGet(key: string, expirySeconds: number): Promise<string> {
    return this.client.presignedGetObject(this.bucket, key, expirySeconds);
  }

  remove(key: string): Promise<void> {
    return this.client.removeObject(this.bucket, key);
  }
}
