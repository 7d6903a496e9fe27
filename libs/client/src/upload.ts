import type { RequestOptions } from './client';
import type { CallOptions } from './signals';
import type { AddedValues, Deleted, UploadTarget, Value, ValueInput } from './types';

/** A stream of the content made anew for each attempt, so an expired upload URL can start again. */
export type StreamSource = () => ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>;

/**
 * A file's content: bytes (a `Buffer` is a `Uint8Array` too), a `Blob` or `File`, a stream, or a
 * function returning a fresh stream per attempt (what `fileFromPath` of `@entia/client/node` gives).
 * A stream given as such can be sent only once: an upload URL that expired before it is an
 * `UploadError` with `expired`, not a restart. Browsers send streams over HTTP/2 only; give them a
 * `Blob`.
 */
export type FileContent = Uint8Array | Blob | ReadableStream<Uint8Array> | StreamSource;

/** A file to store as a new value of a file property (interface §8 "File upload flow"). */
export interface FileUpload {
  /** The file property's name. */
  type: string;
  /** The original file name; downloads are offered under it. Default: a `File`'s `name`. */
  filename?: string;
  /**
   * MIME type; the storage accepts the bytes only with this `Content-Type`. Default: a `Blob`'s
   * `type`, else `application/octet-stream`.
   */
  filetype?: string;
  data: FileContent;
  /** Bytes of a stream (required for one; known for bytes and `Blob`s). */
  size?: number;
  /** For a multilingual file property. */
  language?: string;
}

export interface UploadOptions extends CallOptions {
  /**
   * Value creations in all, the first included. When the signed upload URL has expired before the
   * PUT, the value is deleted and the upload starts again with a new one (interface §7), at most
   * this many times. Default 3.
   */
  attempts?: number;
}

/** The API calls the upload needs (an `EntiaDatabase`); storage is reached with plain `fetch`. */
export interface UploadApi {
  addValues(entityId: string, values: ValueInput[], options?: RequestOptions): Promise<AddedValues>;
  deleteProperty(valueId: string, options?: CallOptions): Promise<Deleted>;
}

/**
 * The storage refused or never answered the PUT of a file. The value created for it was deleted
 * (`removed`) unless that failed too (then `removeError` says why, and `valueId` names the value
 * left without content: delete it, or retry the upload).
 */
export class UploadError extends Error {
  override readonly name = 'UploadError';

  constructor(
    message: string,
    /** The storage's HTTP status; `undefined` when it could not be reached. */
    readonly status: number | undefined,
    /** The storage's answer (S3 XML error), possibly cut short. */
    readonly body: string,
    /** True when the upload URL had expired on the last attempt (after every restart was used). */
    readonly expired: boolean,
    readonly valueId: string,
    readonly removed: boolean,
    readonly removeError?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const DEFAULT_UPLOAD_ATTEMPTS = 3;

/** S3 (and MinIO) answer an expired presigned request with 403 and this message. */
const EXPIRED = /Request has expired/i;

interface PutOutcome {
  ok: boolean;
  status: number | undefined;
  body: string;
  cause?: unknown;
}

/** What a file needs before its value can be created: its name, type and size. */
function describe(file: FileUpload): { filename: string; filetype: string; filesize: number } {
  const { data } = file;
  const blob = typeof Blob !== 'undefined' && data instanceof Blob ? data : undefined;
  const filename = file.filename ?? (blob && 'name' in blob && typeof blob.name === 'string' && blob.name !== '' ? blob.name : undefined);
  if (filename === undefined) throw new TypeError('uploadFile: give a filename (only a File carries its own)');
  const filesize = file.size ?? (data instanceof Uint8Array ? data.byteLength : blob?.size);
  if (filesize === undefined) throw new TypeError('uploadFile: give the size of a stream');
  return { filename, filetype: file.filetype ?? (blob?.type || 'application/octet-stream'), filesize };
}

type PutBody = Uint8Array | Blob | ReadableStream<Uint8Array>;

function isStream(data: unknown): data is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && data instanceof ReadableStream;
}

/** The body of one PUT attempt. */
async function bodyOf(data: FileContent): Promise<PutBody> {
  return typeof data === 'function' ? data() : data;
}

async function put(upload: UploadTarget, content: PutBody, signal: AbortSignal | undefined): Promise<PutOutcome> {
  try {
    // Exactly the returned headers and nothing else: they are part of the signature, and the
    // API's bearer token must never travel to the storage. A stream needs `duplex` (fetch's rule
    // for request bodies that are streams); the signed Content-Length keeps it from being chunked.
    const stream = isStream(content);
    const init: RequestInit & { duplex?: 'half' } = { method: upload.method ?? 'PUT', headers: upload.headers, body: content, ...(stream ? { duplex: 'half' } : {}), ...(signal ? { signal } : {}) };
    const response = await fetch(upload.url, init);
    if (response.ok) {
      // Read, not cancelled: the answer is empty, and a browser logs a cancelled one as a failed request.
      await response.text();
      return { ok: true, status: response.status, body: '' };
    }
    const body = await response.text().catch(() => '');
    return { ok: false, status: response.status, body: body.slice(0, 4096) };
  } catch (cause) {
    if (signal?.aborted) throw signal.reason;
    return { ok: false, status: undefined, body: '', cause };
  }
}

/** Deletes a value whose content never arrived; an already missing value counts as deleted. */
async function removeValue(api: UploadApi, valueId: string): Promise<{ removed: boolean; error?: unknown }> {
  try {
    // Not under the caller's signal: an aborted upload still removes its empty value.
    await api.deleteProperty(valueId);
    return { removed: true };
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return { removed: true };
    return { removed: false, error };
  }
}

/**
 * Creates a file value on `entityId` and PUTs its bytes to storage with the signed upload it came
 * with; returns the value (without `upload`). An expired upload URL deletes the value and starts
 * again, up to `attempts` times. Any other storage failure deletes the value too — a file value
 * without content is of no use to anyone and a caller can simply try again — and throws an
 * `UploadError` carrying the storage's status. API errors are the API client's (`EntiaError`).
 *
 * On a `list: false` property the new value replaces the old one at the POST, so after a failure
 * the property is empty, not back to its previous file.
 */
export async function uploadFile(api: UploadApi, entityId: string, file: FileUpload, options: UploadOptions = {}): Promise<Value> {
  const { type, data, language } = file;
  // A stream given as such is sent once: there is nothing to start again with.
  const attempts = isStream(data) ? 1 : Math.max(1, Math.floor(options.attempts ?? DEFAULT_UPLOAD_ATTEMPTS));
  const { filename, filetype, filesize } = describe(file);
  const input: ValueInput = { type, filename, filesize, filetype, ...(language === undefined ? {} : { language }) };
  const { signal, timeoutMs } = options;

  for (let attempt = 1; ; attempt++) {
    const body = await bodyOf(data);
    const written = await api.addValues(entityId, [input], { signal, timeoutMs });
    const values = Array.isArray(written?.properties) ? written.properties : [];
    const value = values.find((v) => v.type === type && v.upload !== undefined);
    if (!value?.upload) throw new Error(`the API answered without an upload for the file value of "${type}"`);
    const { upload, ...created } = value;

    let outcome: PutOutcome;
    try {
      outcome = await put(upload, body, signal);
    } catch (aborted) {
      await removeValue(api, created._id);
      throw aborted;
    }
    if (outcome.ok) return created;

    const expired = outcome.status === 403 && EXPIRED.test(outcome.body);
    const cleanup = await removeValue(api, created._id);
    if (expired && cleanup.removed && attempt < attempts) continue;

    const reason =
      outcome.status === undefined
        ? `the storage could not be reached (${String((outcome.cause as Error | undefined)?.message ?? outcome.cause)})`
        : expired
          ? `the upload URL expired before the PUT, ${attempt} time(s)`
          : `the storage refused the PUT with ${outcome.status}`;
    const left = cleanup.removed ? 'the value was deleted' : `value ${created._id} is left without content: deleting it failed`;
    throw new UploadError(`Upload of "${filename}" failed: ${reason}; ${left}.`, outcome.status, outcome.body, expired, created._id, cleanup.removed, cleanup.error, {
      cause: outcome.cause,
    });
  }
}
