import { createHash, createHmac } from 'node:crypto';
import { httpRequest, type HttpReply } from './http';

/**
 * AWS Signature V4, header variant, just enough for the S3 calls the stack makes (create and
 * check a bucket) without pulling an S3 client into a dev tool.
 */
export interface S3Credentials {
  accessKey: string;
  secretKey: string;
  region: string;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data).digest();

// RFC 3986 unreserved characters stay; everything else is %XX (S3 keeps '/' in paths).
function uriEncode(s: string, keepSlash: boolean): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%2F/g, keepSlash ? '/' : '%2F');
}

export function signV4(
  method: string,
  url: URL,
  body: Buffer,
  creds: S3Credentials,
  now = new Date(),
): Record<string, string> {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(body);
  const headers: Record<string, string> = {
    host: url.host,
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
  };
  const names = Object.keys(headers).sort();
  const query = [...url.searchParams]
    .map(([k, v]) => `${uriEncode(k, false)}=${uriEncode(v, false)}`)
    .sort()
    .join('&');
  const canonical = [
    method,
    uriEncode(decodeURIComponent(url.pathname), true),
    query,
    names.map((n) => `${n}:${headers[n]!.trim()}\n`).join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${day}/${creds.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key = hmac(`AWS4${creds.secretKey}`, day);
  for (const part of [creds.region, 's3', 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}

export function s3Request(
  endpoint: string,
  creds: S3Credentials,
  method: string,
  path: string,
  body: Buffer = Buffer.alloc(0),
): Promise<HttpReply> {
  const url = new URL(path, endpoint);
  const headers = signV4(method, url, body, creds);
  if (body.length) headers['content-length'] = String(body.length);
  return httpRequest(url.toString(), { method, headers, body });
}

/** S3 error replies are XML; the <Code> is the part worth showing. */
export function s3ErrorCode(reply: HttpReply): string {
  return /<Code>([^<]+)<\/Code>/.exec(reply.body)?.[1] ?? `HTTP ${reply.status}`;
}
